package extract

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestFallbackWorker runs the real worker subprocess (this test binary,
// see TestMain) on a generated PDF.
func TestFallbackWorker(t *testing.T) {
	data := testPDF{
		Title: "Fallback title",
		Pages: [][]string{{"Cats sleep sixteen hours a day.", "They dream too."}, {"Second page here."}},
	}.Bytes(t)
	opts := testOptions().withDefaults()
	doc, err := runWorker(context.Background(), opts, data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Title, "Fallback title"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	want := []string{"Cats sleep sixteen hours a day.\nThey dream too.", "Second page here."}
	if got := doc.Pages; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pages = %q, want %q", got, want)
	}
}

// TestExtractFallbackFails checks that a file neither reader can open ends
// with one error naming both readers' reasons.
func TestExtractFallbackFails(t *testing.T) {
	_, err := mustExtractor(t).Extract(context.Background(), "junk.pdf", []byte("%PDF-1.4\n1 0 obj << >> endobj\n"))
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "pdfium:") || !strings.Contains(msg, "fallback reader:") || strings.Contains(msg, "\n") {
		t.Errorf("message %q should name both readers on one line", msg)
	}
}

func TestWorkerFailures(t *testing.T) {
	base := testOptions().withDefaults()
	for _, tc := range []struct {
		name    string
		argv    []string
		timeout time.Duration
		want    error
	}{
		{"hangs", []string{"sleep", "30"}, 300 * time.Millisecond, ErrTimeout},
		{"crashes", []string{"false"}, 10 * time.Second, ErrMalformed},
		{"bad output", []string{"echo", "not gob"}, 10 * time.Second, ErrMalformed},
		{"missing binary", []string{"/nonexistent/mcpvec-worker"}, 10 * time.Second, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := base
			opts.WorkerCommand, opts.DocTimeout = tc.argv, tc.timeout
			start := time.Now()
			_, err := runWorker(context.Background(), opts, []byte("%PDF-1.4"))
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
	opts := testOptions().withDefaults()
	opts.WorkerCommand = []string{"sleep", "30"}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := runWorker(ctx, opts, nil)
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
	stdout := captureStdout(t)
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
	opts := testOptions().withDefaults()
	opts.MemoryLimit = 64 << 20
	opts.DocTimeout = 15 * time.Second
	opts.WorkerCommand = []string{"env", hogEnv + "=1", os.Args[0]}
	start := time.Now()
	_, err := runWorker(context.Background(), opts, nil)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("worker killed after %s, want well before its 20 s sleep ends", took)
	}
	if err == nil || !strings.Contains(err.Error(), "memory limit") {
		t.Errorf("err = %v, want a memory limit error", err)
	}
}
