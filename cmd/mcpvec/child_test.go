package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// TestMain lets the test binary stand in for the real mcpvec binary: with
// MCPVEC_TEST_MAIN=1 it runs main() with the given arguments, so end-to-end
// tests exec os.Args[0] like a user runs mcpvec (including the extraction
// worker subprocess).
func TestMain(m *testing.M) {
	if os.Getenv("MCPVEC_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	quickRaceExit()
	os.Exit(m.Run())
}

// quickRaceExit keeps the children of a -race test binary from sleeping a
// second each at exit: the race runtime's atexit_sleep_ms (1000 by
// default) waits for goroutines still running to report. A race a child
// meets while it runs is still reported and still makes it exit 66, which
// fails the test that ran it. An atexit_sleep_ms the caller's GORACE sets
// is kept. Call it before any test starts a child.
func quickRaceExit() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
}

// result is how a finished child ended.
type result struct {
	stdout, stderr string
	code           int
}

// childEnv is the environment of an mcpvec child: the test's own, without
// any embedder settings of the machine, plus extra.
func childEnv(db string, extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "MCPVEC_"), strings.HasPrefix(k, "OLLAMA_"),
			strings.HasSuffix(strings.ToUpper(k), "_PROXY"):
			continue
		}
		out = append(out, kv)
	}
	return append(append(out, "MCPVEC_TEST_MAIN=1", "MCPVEC_DB="+db), extra...)
}

// childCmd is `mcpvec args...` on db with extra environment, not started.
func childCmd(ctx context.Context, db string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = childEnv(db, env...)
	return cmd
}

// runChild runs the binary with args against db and extra environment; it
// fails tb when the child is still running after d (it is killed then).
func runChild(tb testing.TB, db string, env []string, d time.Duration, args ...string) result {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := childCmd(ctx, db, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		tb.Errorf("%v: still running after %v", args, d)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatalf("run %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// mcpvec runs the binary with args against the library db.
func mcpvec(t *testing.T, db string, args ...string) result {
	t.Helper()
	return mcpvecEnv(t, db, nil, args...)
}

// mcpvecEnv runs the binary with args against db and extra environment.
func mcpvecEnv(t *testing.T, db string, env []string, args ...string) result {
	t.Helper()
	return runChild(t, db, env, 3*time.Minute, args...)
}

func mustRun(t *testing.T, db string, args ...string) string {
	t.Helper()
	return mustRunEnv(t, db, nil, args...)
}

// mustRunEnv runs the binary like mcpvecEnv and returns its stdout; a
// non-zero exit fails tb.
func mustRunEnv(tb testing.TB, db string, env []string, args ...string) string {
	tb.Helper()
	r := runChild(tb, db, env, 3*time.Minute, args...)
	if r.code != 0 {
		tb.Fatalf("mcpvec %v: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// kill9When starts `mcpvec args...` on db with extra environment, waits
// (up to a minute) until ready holds for its stderr so far, then delay
// more, and kills it with SIGKILL; killed is false when the child exited
// before it was ready.
func kill9When(t *testing.T, db string, env []string, ready func(stderr string) bool, delay time.Duration, args ...string) (killed bool) {
	t.Helper()
	p, err := childproc.Start(childCmd(context.Background(), db, env, args...))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	for deadline := time.Now().Add(time.Minute); !ready(p.Stderr.String()); time.Sleep(2 * time.Millisecond) {
		select {
		case <-p.Done():
			return false
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("mcpvec %v: not ready to be killed within a minute\n%s", args, p.Stderr)
		}
	}
	time.Sleep(delay)
	return true
}

// served is a running `mcpvec serve` child.
type served struct {
	*childproc.Proc
	url string         // the local MCP endpoint it printed
	c   *client.Client // an initialised client of it, from startServe
}

// serveProc runs `mcpvec serve --addr 127.0.0.1:0 args...` on db with
// extra environment until the test ends (interrupted on cleanup) and
// returns once it listens; its admin channel is up by then.
func serveProc(tb testing.TB, db string, env []string, args ...string) *served {
	tb.Helper()
	p, url, err := childproc.StartServe(context.Background(), os.Args[0], childEnv(db, env...), time.Minute, args...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Stop)
	return &served{Proc: p, url: url}
}

// startServe is serveProc with an initialised MCP client of the server,
// closed on cleanup.
func startServe(tb testing.TB, db string, env []string, args ...string) *served {
	tb.Helper()
	s := serveProc(tb, db, env, args...)
	s.c = connect(tb, s.url, "")
	return s
}

// waitOutput returns what b holds once it contains want, or fails t after
// a minute. A child's stderr reaches b through a pipe that os/exec copies
// from a goroutine of its own (and serve writes its log lines from another),
// so a line may land a moment after the reply to the request it tells of.
func waitOutput(t *testing.T, b interface{ String() string }, want string) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if s := b.String(); strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", want, b)
		}
	}
}
