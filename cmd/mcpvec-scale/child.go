package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildBinary compiles ./cmd/mcpvec of the module rooted at src into dir
// with `go build -o`, as a user would build it.
func buildBinary(ctx context.Context, src, dir string) (string, error) {
	bin := filepath.Join(dir, "mcpvec")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/mcpvec")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %w\n%s", src, err, out)
	}
	return bin, nil
}

// childEnv is the environment of every child: no MCPVEC_ variable from the
// caller, and a private runtime dir so that the admin socket of the server
// under test is apart from any other server on the machine (and a CLI
// `search` is never handed to one).
func childEnv(runtimeDir string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPVEC_") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "XDG_RUNTIME_DIR="+runtimeDir)
}

// runResult is what one finished child cost.
type runResult struct {
	Wall    time.Duration
	PeakRSS int64 // bytes, from the child's rusage
	Stdout  string
}

// runChild runs bin with args to completion and reports its wall time and
// peak RSS. A non-zero exit is an error carrying the child's stderr.
func runChild(ctx context.Context, bin string, env []string, args ...string) (runResult, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := runResult{Wall: time.Since(start), Stdout: stdout.String()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && cmd.ProcessState != nil {
		res.PeakRSS = ru.Maxrss << 10 // kB on Linux
	}
	if err != nil {
		return res, fmt.Errorf("mcpvec %s: %w\n%s", args[0], err, tail(stderr.String(), 2000))
	}
	return res, nil
}

var ingestedRE = regexp.MustCompile(`\(\d+ pages, (\d+) passages\)`)

// ingestedPassages reads the passage count from ingest's summary line.
func ingestedPassages(out string) (int, error) {
	m := ingestedRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no passage count in ingest output %q", tail(out, 300))
	}
	return strconv.Atoi(m[1])
}

// memStatus reads VmRSS and VmHWM (peak) of pid from /proc, in bytes.
func memStatus(pid int) (rss, hwm int64, err error) {
	fields, err := procFields(fmt.Sprintf("/proc/%d/status", pid))
	return fields["VmRSS"], fields["VmHWM"], err
}

// procFields parses a /proc file of "Name:   123 kB" lines into bytes.
// Lines that are not sizes in kB are left out.
func procFields(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasSuffix(rest, " kB") {
			continue
		}
		if kb, err := strconv.ParseInt(strings.TrimSuffix(rest, " kB"), 10, 64); err == nil {
			out[name] = kb << 10
		}
	}
	return out, nil
}

// rssBreakdown is /proc/PID/smaps_rollup in bytes: anonymous memory (the
// Go heap and stacks) against file-backed pages (the binary and any
// memory-mapped library file).
type rssBreakdown struct {
	RSS, Anonymous, File int64
}

func readBreakdown(pid int) (rssBreakdown, error) {
	f, err := procFields(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return rssBreakdown{}, err
	}
	if _, ok := f["Rss"]; !ok {
		return rssBreakdown{}, errors.New("smaps_rollup has no Rss line")
	}
	anon := f["Anonymous"]
	return rssBreakdown{RSS: f["Rss"], Anonymous: anon, File: f["Rss"] - anon}, nil
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
