package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// backupFlags are serve's scheduled backups: every `every`, a copy of the
// library (as `mcpvec backup` writes it) into dir, named with the time,
// keeping the newest keep.
type backupFlags struct {
	every time.Duration
	keep  int
	dir   string
}

func registerBackups(fs *flag.FlagSet) *backupFlags {
	f := new(backupFlags)
	fs.DurationVar(&f.every, "backup-every", 0, "back the library up this often while serving, e.g. 24h (0: never)")
	f.keep = 7
	fs.Func("keep", "with --backup-every: keep the newest `n` backups, removing older ones (default 7)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want a number of backups, at least 1")
		}
		f.keep = n
		return nil
	})
	fs.StringVar(&f.dir, "backup-dir", "", "with --backup-every: the backups' folder (default LIBRARY.backups beside the library file)")
	return f
}

// of returns the flags for the library called name when several are
// served: a shared --backup-dir gets a folder per library, so their
// backups' names cannot collide.
func (f *backupFlags) of(name string) *backupFlags {
	if f.dir == "" {
		return f
	}
	g := *f
	g.dir = filepath.Join(f.dir, name)
	return &g
}

// refuse logs that a Weaviate library gets no scheduled backups.
func (f *backupFlags) refuse() {
	if f.every > 0 {
		slog.Error("--backup-every backs up a library file (a Weaviate collection: `mcpvec export` or Weaviate's own backups); serving without backups")
	}
}

// start begins the scheduled backups of st's library file and returns
// what stops them (waiting for one in progress). It does nothing without
// --backup-every; when the folder cannot be made it logs why and serves
// without backups, as a failed backup is logged and serving goes on.
func (f *backupFlags) start(ctx context.Context, e *env, st *serveState) (stop func()) {
	if f.every <= 0 {
		return func() {}
	}
	dir := f.dir
	if dir == "" {
		dir = st.db.Path() + ".backups"
	}
	dir = absPath(e, dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		slog.Error("--backup-dir: serving without backups", "err", err)
		return func() {}
	}
	slog.Info("scheduled backups", "every", f.every, "keep", f.keep, "dir", dir)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(f.every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				scheduledBackup(ctx, st.db, dir, f.keep, now)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// backupPrefix and backupExt frame a scheduled backup's name:
// backup-20261205T051928.123Z.db.
const (
	backupPrefix = "backup-"
	backupExt    = ".db"
)

// scheduledBackup writes one backup into dir, checks it and removes the
// oldest beyond keep. Failures are logged, never fatal: serving goes on.
func scheduledBackup(ctx context.Context, db *store.DB, dir string, keep int, now time.Time) {
	path := filepath.Join(dir, backupPrefix+now.UTC().Format("20060102T150405.000Z")+backupExt)
	start := time.Now()
	info, err := writeBackup(ctx, db, path)
	if err != nil {
		slog.Error("scheduled backup", "path", path, "err", err)
		return
	}
	if problems := checkCopy(ctx, path); len(problems) > 0 {
		slog.Error("scheduled backup does not pass check; removed", "path", path, "problems", strings.Join(problems, "; "))
		os.Remove(path)
		return
	}
	slog.Info("scheduled backup", "path", path, "documents", info.Totals.Documents, "bytes", info.Bytes, "took", time.Since(start).Round(time.Millisecond))
	pruneBackups(dir, keep)
}

// pruneBackups removes the oldest scheduled backups in dir beyond keep;
// their names sort by time.
func pruneBackups(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		slog.Warn("prune backups", "dir", dir, "err", err)
		return
	}
	var names []string
	for _, en := range entries {
		if n := en.Name(); en.Type().IsRegular() && strings.HasPrefix(n, backupPrefix) && strings.HasSuffix(n, backupExt) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names[:max(0, len(names)-keep)] {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			slog.Warn("prune backups", "path", filepath.Join(dir, n), "err", err)
		} else {
			slog.Info("removed an old backup", "path", filepath.Join(dir, n))
		}
	}
}
