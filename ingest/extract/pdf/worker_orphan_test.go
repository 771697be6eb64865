package pdf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const orphanParentEnv = "MCPVEC_EXTRACT_TEST_ORPHAN_PARENT"

// runOrphanParent is the test binary acting as an ingest: it starts a
// fallback worker that never finishes (sleep) and waits on it.
func runOrphanParent() {
	opts := testConfig()
	opts.WorkerCommand = []string{"sleep", "120"}
	opts.DocTimeout = 2 * time.Minute
	_, err := Fallback(context.Background(), opts, nil)
	fmt.Fprintln(os.Stderr, err)
	os.Exit(3)
}

// TestWorkerDiesWithParent kills an ingest with SIGKILL while its fallback
// worker runs and expects the kernel to take the worker down with it.
func TestWorkerDiesWithParent(t *testing.T) {
	childDiesWithParent(t, orphanParentEnv+"=1", "sleep", "worker")
}

// childDiesWithParent starts the test binary as a parent (env selects its
// part in TestMain), waits for its child running comm, kills the parent
// with SIGKILL and expects the kernel to end the child within 5 s.
func childDiesWithParent(t *testing.T, env, comm, what string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux-only")
	}
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), env)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer parent.Process.Kill()
	child := waitForChild(t, parent.Process.Pid, comm)
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("%s %d still runs 5 s after its parent was killed", what, child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const ocrOrphanParentEnv = "MCPVEC_EXTRACT_TEST_OCR_ORPHAN_PARENT"

// runOCROrphanParent is the test binary acting as an ingest that OCRs a
// page with engine, a stand-in for tesseract that never finishes.
func runOCROrphanParent(engine string) {
	o := &OCR{path: engine, lang: "eng", timeout: 2 * time.Minute, sem: make(chan struct{}, 1)}
	_, err := o.image(context.Background(), []byte("not an image"), 0)
	fmt.Fprintln(os.Stderr, err)
	os.Exit(3)
}

// TestOCRDiesWithParent kills an ingest with SIGKILL while an OCR process
// runs and expects the kernel to take it down too (red team, second
// round: tesseract outlived 1 of 8 killed ingests by ~7 s).
func TestOCRDiesWithParent(t *testing.T) {
	engine := filepath.Join(t.TempDir(), "tesseract")
	if err := os.WriteFile(engine, []byte("#!/bin/sh\nexec sleep 120\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	childDiesWithParent(t, ocrOrphanParentEnv+"="+engine, "sleep", "OCR process")
}

// waitForChild returns the pid of ppid's child running comm.
func waitForChild(t *testing.T, ppid int, comm string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", ppid))
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			for _, f := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(f)
				c, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
				if strings.TrimSpace(string(c)) == comm {
					return pid
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d started no %s within 10 s", ppid, comm)
	return 0
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}
