package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// runResult is what one finished child cost.
type runResult struct {
	Wall     time.Duration
	PeakRSS  int64 // bytes, from the child's rusage
	PeakAnon int64 // bytes of anonymous memory, the largest sampled
	Stdout   string
}

// runChild runs bin with args to completion and reports its wall time and
// peak RSS, and samples its anonymous memory every 100 ms (RSS also counts
// the pages of the memory-mapped library file, which are page cache). A
// non-zero exit is an error carrying the child's stderr.
func runChild(ctx context.Context, bin string, env []string, args ...string) (runResult, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return runResult{}, fmt.Errorf("start mcpvec %s: %w", args[0], err)
	}
	stop := childproc.SampleMemory(cmd.Process.Pid, 100*time.Millisecond)
	err := cmd.Wait()
	res := runResult{Wall: time.Since(start), Stdout: stdout.String(), PeakAnon: stop().Anon}
	res.PeakRSS = childproc.PeakRSS(cmd.ProcessState)
	if err != nil {
		return res, fmt.Errorf("mcpvec %s: %w\n%s", args[0], err, childproc.Tail(stderr.String(), 2000))
	}
	return res, nil
}

var ingestedRE = regexp.MustCompile(`\(\d+ pages?, (\d+) passages?\)`)

// ingestedPassages reads the passage count from ingest's summary line.
func ingestedPassages(out string) (int, error) {
	m := ingestedRE.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no passage count in ingest output %q", childproc.Tail(out, 300))
	}
	return strconv.Atoi(m[1])
}

// rssBreakdown is /proc/PID/smaps_rollup in bytes: anonymous memory (the
// Go heap and stacks) against file-backed pages (the binary and any
// memory-mapped library file).
type rssBreakdown struct {
	RSS, Anonymous, File int64
}

func readBreakdown(pid int) (rssBreakdown, error) {
	f, err := childproc.ProcFields(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return rssBreakdown{}, err
	}
	if _, ok := f["Rss"]; !ok {
		return rssBreakdown{}, errors.New("smaps_rollup has no Rss line")
	}
	anon := f["Anonymous"]
	return rssBreakdown{RSS: f["Rss"], Anonymous: anon, File: f["Rss"] - anon}, nil
}
