package childproc

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProcFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	os.WriteFile(path, []byte("Name:\tmcpvec\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\nThreads:\t7\n"), 0o600)
	f, err := ProcFields(path)
	if err != nil {
		t.Fatal(err)
	}
	if f["VmRSS"] != 1<<20 || f["VmHWM"] != 2<<20 || len(f) != 2 {
		t.Errorf("ProcFields = %v, want VmRSS 1 MiB and VmHWM 2 MiB only", f)
	}
	if _, err := ProcFields(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("ProcFields of a missing file: no error")
	}
}

func TestMemoryOfSelf(t *testing.T) {
	rss, hwm, err := Memory(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if rss <= 0 || hwm < rss {
		t.Errorf("Memory(self) = rss %d, hwm %d", rss, hwm)
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("MCPVEC_DB", "/elsewhere.db")
	env := Env("/run/x")
	if slices.ContainsFunc(env, func(kv string) bool { return kv == "MCPVEC_DB=/elsewhere.db" }) {
		t.Error("Env kept MCPVEC_DB")
	}
	if env[len(env)-1] != "XDG_RUNTIME_DIR=/run/x" {
		t.Errorf("Env ends with %q", env[len(env)-1])
	}
}

func TestBufferKeepsTheLastMiB(t *testing.T) {
	var b Buffer
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range 3 * 1024 {
		b.Write(line)
	}
	b.Write([]byte("last line\n"))
	s := b.String()
	if len(s) < bufferLimit || len(s) > 2*bufferLimit || !strings.HasSuffix(s, "last line\n") {
		t.Errorf("after 3 MiB the buffer holds %d bytes ending %q; want 1-2 MiB ending with the last line", len(s), Tail(s, 20))
	}
}

// fakeServe writes an executable script that prints what `mcpvec serve`
// prints (or body) and waits to be interrupted.
func fakeServe(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcpvec")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStartServeWaitsForTheEndpoint(t *testing.T) {
	bin := fakeServe(t, `echo "mcpvec serving lib.db"; sleep 0.2; echo "  http://127.0.0.1:4321/k-secret/mcp"; echo "args $*" >&2; exec sleep 30`)
	p, url, err := StartServe(context.Background(), bin, os.Environ(), 10*time.Second, "--read-only")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if url != "http://127.0.0.1:4321/k-secret/mcp" {
		t.Errorf("endpoint %q", url)
	}
	for !strings.Contains(p.Stderr.String(), "args serve --addr 127.0.0.1:0 --read-only") {
		select {
		case <-p.Done():
			t.Fatalf("child exited; stderr %q", p.Stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	p.Stop()
	select {
	case <-p.Done():
	default:
		t.Error("Stop returned before the child exited")
	}
}

func TestStartServeChildExitsFirst(t *testing.T) {
	bin := fakeServe(t, `echo "no library at lib.db" >&2; exit 1`)
	if _, _, err := StartServe(context.Background(), bin, os.Environ(), 10*time.Second); err == nil || !strings.Contains(err.Error(), "no library at lib.db") {
		t.Errorf("StartServe of a child that exits: %v; want its stderr in the error", err)
	}
	bin = fakeServe(t, `exec sleep 30`)
	start := time.Now()
	if _, _, err := StartServe(context.Background(), bin, os.Environ(), 200*time.Millisecond); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("StartServe of a silent child: %v after %v; want an error at the timeout", err, time.Since(start))
	}
}

func TestSampleMemoryOfSelf(t *testing.T) {
	stop := SampleMemory(os.Getpid(), time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	if p := stop(); p.RSS <= 0 || p.Anon <= 0 || p.Anon > p.RSS {
		t.Errorf("SampleMemory(self) = %+v", p)
	}
}

func TestFreeAddrCanBeListenedOn(t *testing.T) {
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("FreeAddr = %q, want a loopback address", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	l.Close()
}
