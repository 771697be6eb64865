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
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// checkFigures counts the runs of `mcpvec check` after each fault and
// their failures.
type checkFigures struct {
	Checks, CheckFailures int
	Failed                []string // the first few failed checks
}

// check runs `mcpvec check` with env (which names the library) and counts a
// failure, saying after what.
func (cf *checkFigures) check(ctx context.Context, bin string, env []string, after string) {
	cf.Checks++
	if b, err := childproc.Run(ctx, bin, env, "check"); err != nil {
		cf.CheckFailures++
		if len(cf.Failed) < 3 {
			cf.Failed = append(cf.Failed, fmt.Sprintf("after %s: %v: %s", after, err, childproc.Tail(string(b), 500)))
		}
	}
}

// killFigures is what the kill campaign counted.
type killFigures struct {
	checkFigures
	Kills    int
	Finished int // rounds whose command ended before its kill came
	Unborn   int // rounds, checked, ended before any had created the library
}

// killCampaign kills ingest, reindex, sync of a changing folder (files
// added, edited, renamed and removed) and serve (with a forwarded ingest
// under way) with SIGKILL at random moments,
// rounds times each, in a library of its own under dir; after every kill
// the library must pass `mcpvec check`.
func killCampaign(ctx context.Context, bin, dir string, rounds int, rng *rand.Rand, out io.Writer) (*killFigures, error) {
	kdir := filepath.Join(dir, "kills")
	files := filepath.Join(kdir, "files")
	if err := writeCorpus(files, 120, rng); err != nil {
		return nil, err
	}
	kf := &killFigures{}
	ops := []struct {
		name string
		run  func() (bool, error)
	}{
		{"ingest", func() (bool, error) {
			if err := rewrite(files, 30, rng); err != nil {
				return false, err
			}
			return killOne(ctx, bin, kdir, rng, "ingest", "--workers", "1", files)
		}},
		{"reindex", func() (bool, error) {
			return killOne(ctx, bin, kdir, rng, "reindex", "--embedder", "hash", "--dimensions", fmt.Sprint(256+128*rng.Intn(3)))
		}},
		{"sync", func() (bool, error) {
			if err := changeCorpus(files, rng); err != nil {
				return false, err
			}
			return killOne(ctx, bin, kdir, rng, "sync", "--workers", "1", files)
		}},
		{"serve", func() (bool, error) { return true, killServe(ctx, bin, kdir, files, rng) }},
	}
	lib, born := filepath.Join(kdir, "library.db"), false
	for _, op := range ops {
		for range rounds {
			killed, err := op.run()
			if err != nil {
				return kf, fmt.Errorf("%s: %w", op.name, err)
			}
			if killed {
				kf.Kills++
			} else {
				kf.Finished++
			}
			if _, err := os.Stat(lib); err == nil {
				born = true
			} else if !born {
				// Killed before the first ingest created the file (a slow
				// start): nothing was written, so nothing can be lost.
				kf.Checks++
				kf.Unborn++
				continue
			}
			kf.check(ctx, bin, childEnv(kdir), op.name)
		}
		fmt.Fprintf(out, "  kill -9 %-8s ×%d, checks failed so far %d\n", op.name, rounds, kf.CheckFailures)
	}
	return kf, nil
}

// killOne starts `mcpvec args...` and kills it with SIGKILL after a random
// 5-150 ms; killed is false when it finished first.
func killOne(ctx context.Context, bin, kdir string, rng *rand.Rand, args ...string) (killed bool, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = childEnv(kdir)
	if err := cmd.Start(); err != nil {
		return false, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Duration(5+rng.Intn(145)) * time.Millisecond):
		killed = cmd.Process.Kill() == nil
		<-done
	}
	return killed, ctx.Err()
}

// killServe starts serve, hands it an ingest of the changing folder over the
// admin channel and kills the server while that may still run.
func killServe(ctx context.Context, bin, kdir, files string, rng *rand.Rand) error {
	srv, err := startServer(ctx, bin, kdir)
	if err != nil {
		return err
	}
	if err := changeCorpus(files, rng); err != nil {
		srv.Stop()
		return err
	}
	fwd := exec.CommandContext(ctx, bin, "ingest", files)
	fwd.Env = childEnv(kdir)
	if err := fwd.Start(); err != nil {
		srv.Stop()
		return err
	}
	time.Sleep(time.Duration(rng.Intn(300)) * time.Millisecond)
	srv.Kill()
	fwd.Process.Kill()
	fwd.Wait()
	return ctx.Err()
}

// diskFigures is what the full-disk phase counted.
type diskFigures struct {
	checkFigures
	Skipped string // why the phase did not run
	Full    int    // commands that met the full disk
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
		if out, _ := childproc.Run(ctx, bin, env, args...); strings.Contains(string(out), "no space left") {
			df.Full++
		}
		df.check(ctx, bin, env, args[0])
	}
	if df.Full == 0 {
		return df, fmt.Errorf("the %d MiB disk never filled", mib)
	}
	return df, nil
}

func (df *diskFigures) report(out io.Writer) {
	switch {
	case df == nil:
	case df.Skipped != "":
		fmt.Fprintf(out, "disk full: skipped: %s\n", df.Skipped)
	default:
		fmt.Fprintf(out, "disk full: %d commands met a full tmpfs, %d checks, %d failed\n", df.Full, df.Checks, df.CheckFailures)
		for _, f := range df.Failed {
			fmt.Fprintf(out, "  failed: %s\n", f)
		}
	}
}

// writeCorpus writes n text files of a few kilobytes each.
func writeCorpus(dir string, n int, rng *rand.Rand) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%03d.txt", i)), corpusText(i, rng), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// rewrite gives n random files of dir new text, so an ingest has work.
func rewrite(dir string, n int, rng *rand.Rand) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	for i := 0; i < n && err == nil && len(names) > 0; i++ {
		j := rng.Intn(len(names))
		err = os.WriteFile(names[j], corpusText(j, rng), 0o600)
	}
	return err
}

// changeCorpus rewrites ten files, removes one and adds one, as a folder
// in use changes between syncs.
func changeCorpus(dir string, rng *rand.Rand) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(names) < 3 {
		return err
	}
	if err := rewrite(dir, 10, rng); err != nil {
		return err
	}
	i, j := rng.Intn(len(names)), rng.Intn(len(names)-1)
	if j >= i {
		j++ // another file than the one removed
	}
	if err := os.Remove(names[i]); err != nil {
		return err
	}
	// A rename, which sync turns into a path change without re-embedding.
	if err := os.Rename(names[j], filepath.Join(dir, fmt.Sprintf("moved%06d.txt", rng.Intn(1e6)))); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("new%06d.txt", rng.Intn(1e6))), corpusText(rng.Intn(99), rng), 0o600)
}

func corpusText(i int, rng *rand.Rand) []byte {
	var b strings.Builder
	for p := range 30 {
		fmt.Fprintf(&b, "File %d paragraph %d speaks of harbour %d and rope%d. ", i, p, rng.Intn(40), rng.Intn(900))
		if p%5 == 4 {
			b.WriteString("\n\n")
		}
	}
	return []byte(b.String())
}
