package pdf

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

func TestWorkerFailures(t *testing.T) {
	base := testConfig()
	for _, tc := range []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    error
	}{
		{"hangs", []string{"sleep", "30"}, 300 * time.Millisecond, core.ErrTimeout},
		{"crashes", []string{"false"}, 10 * time.Second, core.ErrMalformed},
		{"bad output", []string{"echo", "not gob"}, 10 * time.Second, core.ErrMalformed},
		{"missing binary", []string{"/nonexistent/mcpvec-worker"}, 10 * time.Second, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := base
			opts.WorkerCommand, opts.DocTimeout = tc.argv, tc.timeout
			start := time.Now()
			_, err := Fallback(context.Background(), opts, []byte("%PDF-1.4"))
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if took := time.Since(start); took > tc.timeout+3*time.Second {
				t.Errorf("took %s, deadline was %s", took, tc.timeout)
			}
		})
	}
}

func TestWorkerCancel(t *testing.T) {
	opts := testConfig()
	opts.WorkerCommand = []string{"sleep", "30"}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := Fallback(ctx, opts, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestRunWorkerProtocol calls RunWorker in-process: stray prints must not
// reach w, and a broken PDF is reported in the response, not as an error.
func TestRunWorkerProtocol(t *testing.T) {
	var in, out bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(workerRequest{Data: []byte("not a pdf")}); err != nil {
		t.Fatal(err)
	}
	stdout := extracttest.CaptureStdout(t)
	if err := RunWorker(&in, &out); err != nil {
		t.Fatal(err)
	}
	if s := stdout(); s != "" {
		t.Errorf("RunWorker wrote to stdout: %q", s)
	}
	var resp workerResponse
	if err := gob.NewDecoder(&out).Decode(&resp); err != nil {
		t.Fatal(err)
	}
	if resp.Err == "" || len(resp.Pages) != 0 {
		t.Errorf("response = %+v, want an error and no pages", resp)
	}
	if err := RunWorker(strings.NewReader("garbage"), &out); err == nil {
		t.Error("RunWorker accepted a garbage request")
	}
}

func TestResidentBytes(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc on this system: the worker memory limit is not enforced here")
	}
	rss, err := residentBytes("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	if rss < 1<<20 || rss > 64<<30 {
		t.Errorf("resident set of the test process = %d bytes, implausible", rss)
	}
}

// TestWorkerMemoryLimit starts a worker that allocates far beyond a small
// limit and expects it killed.
func TestWorkerMemoryLimit(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc on this system: the worker memory limit is not enforced here")
	}
	opts := testConfig()
	opts.MemoryLimit = 64 << 20
	opts.DocTimeout = 15 * time.Second
	opts.WorkerCommand = []string{"env", hogEnv + "=1", os.Args[0]}
	start := time.Now()
	_, err := Fallback(context.Background(), opts, nil)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("worker killed after %s, want well before its 20 s sleep ends", took)
	}
	if err == nil || !strings.Contains(err.Error(), "memory limit") {
		t.Errorf("err = %v, want a memory limit error", err)
	}
}
