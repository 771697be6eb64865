package main

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// diskFigures is what the full-disk phase counted.
type diskFigures struct {
	Skipped               string // why the phase did not run
	Full                  int    // commands that met the full disk
	Checks, CheckFailures int
}

// fillDisk mounts a tmpfs of mib MiB (root only; skipped otherwise), puts
// a library on it, ingests more than fits, removes documents while it is
// full, and checks the library after each step.
func fillDisk(ctx context.Context, bin, dir string, mib int, rng *rand.Rand) (*diskFigures, error) {
	df := &diskFigures{}
	mnt := filepath.Join(dir, "disk")
	if err := os.MkdirAll(mnt, 0o700); err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, "mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%dm", mib), "tmpfs", mnt).CombinedOutput(); err != nil {
		df.Skipped = fmt.Sprintf("cannot mount a tmpfs here (needs root): %v %s", err, strings.TrimSpace(string(out)))
		return df, nil
	}
	defer exec.Command("umount", mnt).Run()
	files := filepath.Join(dir, "disk-files")
	if err := writeCorpus(files, 0, rng); err != nil {
		return nil, err
	}
	for i := range 3 * mib {
		b := make([]byte, 300<<10)
		for j := range b {
			b[j] = "abcdefghij klmnopqrst uvwxyz\n"[rng.Intn(29)]
		}
		if err := os.WriteFile(filepath.Join(files, fmt.Sprintf("big%03d.txt", i)), b, 0o600); err != nil {
			return nil, err
		}
	}
	env := append(childEnv(dir), "MCPVEC_DB="+filepath.Join(mnt, "library.db"))
	steps := [][]string{{"ingest", files}, {"ingest", files}}
	names, _ := filepath.Glob(filepath.Join(files, "*.txt"))
	steps = append(steps, append([]string{"rm"}, names[:min(5, len(names))]...))
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		if out, _ := cmd.CombinedOutput(); strings.Contains(string(out), "no space left") {
			df.Full++
		}
		df.check(ctx, bin, env)
	}
	if df.Full == 0 {
		return df, fmt.Errorf("the %d MiB disk never filled", mib)
	}
	return df, nil
}

func (df *diskFigures) check(ctx context.Context, bin string, env []string) {
	df.Checks++
	cmd := exec.CommandContext(ctx, bin, "check")
	cmd.Env = env
	if err := cmd.Run(); err != nil {
		df.CheckFailures++
	}
}

func (df *diskFigures) report(out io.Writer) {
	switch {
	case df == nil:
	case df.Skipped != "":
		fmt.Fprintf(out, "disk full: skipped: %s\n", df.Skipped)
	default:
		fmt.Fprintf(out, "disk full: %d commands met a full tmpfs, %d checks, %d failed\n", df.Full, df.Checks, df.CheckFailures)
	}
}
