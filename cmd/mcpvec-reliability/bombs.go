package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// Amplification bombs (issue 35): each is ingested by the real binary,
// which must refuse it with "expansion bomb" in little memory and time. A
// run that passes bombRSSCap is killed, so a regression cannot eat the
// machine; it counts as a failure.
const (
	bombRSSCap  = 2 << 30
	bombTimeout = 60 * time.Second
)

// bombRun is one bomb's ingest.
type bombRun struct {
	Name     string
	Size     int   // bytes of the file
	Peak     int64 // VmHWM of the ingest, bytes
	Took     time.Duration
	Refused  bool   // the ingest said "expansion bomb"
	Stopped  string // why the campaign killed it, "" when it ended by itself
	Reported string // the ingest's last line
}

// bombFigures is what the bombs measured.
type bombFigures struct{ Runs []bombRun }

// failures counts bombs not refused as expansion bombs.
func (bf *bombFigures) failures() int {
	n := 0
	for _, r := range bf.Runs {
		if !r.Refused || r.Stopped != "" {
			n++
		}
	}
	return n
}

// bombs writes extracttest.Bombs (the red team's XLSX, an ODS row repeated
// a million times, an EPUB listing one chapter 20,000 times) and ingests
// each into the library in dir/bombs.
func bombs(ctx context.Context, bin, dir string, out io.Writer) (*bombFigures, error) {
	bdir := filepath.Join(dir, "bombs")
	if err := os.MkdirAll(bdir, 0o700); err != nil {
		return nil, err
	}
	all, err := extracttest.Bombs()
	if err != nil {
		return nil, err
	}
	bf := &bombFigures{}
	for _, m := range all {
		path := filepath.Join(bdir, m.Name)
		if err := os.WriteFile(path, m.Data, 0o600); err != nil {
			return nil, err
		}
		r, err := ingestBomb(ctx, bin, bdir, path)
		if err != nil {
			return nil, fmt.Errorf("ingest %s: %w", m.Name, err)
		}
		r.Name, r.Size = m.Name, len(m.Data)
		bf.Runs = append(bf.Runs, r)
		fmt.Fprintf(out, "  bomb %-9s %d KiB: peak RSS %d MB in %s, refused %v %s\n", r.Name, r.Size>>10, r.Peak>>20, r.Took.Round(time.Millisecond), r.Refused, r.Stopped)
	}
	return bf, nil
}

// ingestBomb runs `mcpvec ingest path` with the library in dir, killing it
// past bombRSSCap or bombTimeout.
func ingestBomb(ctx context.Context, bin, dir, path string) (bombRun, error) {
	var r bombRun
	var output strings.Builder
	cmd := exec.CommandContext(ctx, bin, "ingest", path)
	cmd.Env, cmd.Stdout, cmd.Stderr = childEnv(dir), &output, &output
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			rss, _, _ := childproc.Memory(cmd.Process.Pid)
			if took := time.Since(start); rss > bombRSSCap || took > bombTimeout {
				r.Stopped = fmt.Sprintf("(killed at %d MB after %s)", rss>>20, took.Round(time.Millisecond))
				cmd.Process.Kill()
			}
		}
	}
	r.Took = time.Since(start)
	r.Peak = childproc.PeakRSS(cmd.ProcessState)
	text := strings.TrimSpace(output.String())
	r.Reported = text[strings.LastIndexByte(text, '\n')+1:]
	r.Refused = strings.Contains(text, "expansion bomb")
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return r, err
	}
	return r, ctx.Err()
}

func (bf *bombFigures) report(out io.Writer) {
	if bf == nil {
		return
	}
	for _, r := range bf.Runs {
		fmt.Fprintf(out, "bomb %s (%d KiB): peak RSS %d MB, %s, refused as an expansion bomb: %v %s\n",
			r.Name, r.Size>>10, r.Peak>>20, r.Took.Round(time.Millisecond), r.Refused, r.Stopped)
		if !r.Refused {
			fmt.Fprintf(out, "  failed: %s said %q\n", r.Name, r.Reported)
		}
	}
}
