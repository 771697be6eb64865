package childproc

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
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
