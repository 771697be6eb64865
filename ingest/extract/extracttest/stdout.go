package extracttest

import (
	"io"
	"os"
	"testing"
)

// CaptureStdout points os.Stdout at a pipe until the returned function is
// called (or the test ends), which restores it and returns what was
// written. It changes a process-wide variable: not for parallel tests.
func CaptureStdout(tb testing.TB) func() string {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = w
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	done := false
	restore := func() string {
		if done {
			return ""
		}
		done = true
		os.Stdout = orig
		w.Close()
		s := <-got
		r.Close()
		return s
	}
	tb.Cleanup(func() { restore() })
	return restore
}
