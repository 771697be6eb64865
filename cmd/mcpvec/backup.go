package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/term"

	"github.com/mcpvec/mcpvec/internal/bytesize"
	"github.com/mcpvec/mcpvec/store"
)

// runBackup writes a consistent copy of the library file to FILE (or to
// stdout with "-") from one read transaction while the library is served
// and written: when a server or an ingest holds the file, the command is
// handed to it and it writes the copy itself. The copy is written to
// FILE.tmp, synced and renamed into place, then checked as `mcpvec check`
// would (--no-check skips that).
func runBackup(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("backup", "[--db LIB] [--no-check] FILE|-", e)
	noCheck := fs.Bool("no-check", false, "do not check the copy after writing it")
	pos, err := parseArgs(fs, args, e, one)
	if err != nil {
		return err
	}
	if err := lf.needFile(e, "backup copies a library file; a Weaviate collection is copied out with `mcpvec export`"); err != nil {
		return err
	}
	dst := pos[0]
	if dst != "-" {
		dst = absPath(e, dst)
	} else if f, ok := e.stdout.(*os.File); ok && e.forwarded == nil && term.IsTerminal(int(f.Fd())) {
		return errors.New("backup -: stdout is a terminal; redirect it to a file or a pipe")
	}
	// The server the command may be handed to resolves no relative path:
	// it is given the absolute one.
	cmd := []string{"backup", "--no-check=" + fmt.Sprint(*noCheck), "--", dst}
	if lf.db != "" {
		cmd = append([]string{"backup", "--db", absPath(e, lf.db)}, cmd[1:]...)
	}
	return withLibrary(ctx, e, lf, cmd, false, needStore, func(h *handle) error {
		if dst == "-" {
			return backupToStdout(ctx, e, h.db)
		}
		return backupToFile(ctx, e, h.db, dst, !*noCheck)
	})
}

// backupToStdout streams the copy to stdout (over the admin channel when
// forwarded) with its summary on stderr; it is not checked.
func backupToStdout(ctx context.Context, e *env, db *store.DB) error {
	start := time.Now()
	info, err := db.Backup(ctxWriter{ctx, e.stdout})
	if err != nil {
		return failf("backup: %w", err)
	}
	fmt.Fprintf(e.stderr, "backup of %s: %s\n", termSafe(db.Path(), false), backupSummary(info, time.Since(start)))
	return nil
}

// backupToFile writes the copy to dst and checks it when check is set.
func backupToFile(ctx context.Context, e *env, db *store.DB, dst string, check bool) error {
	if sameFile(dst, db.Path()) {
		return fmt.Errorf("backup: %s is the library itself; name another file", dst)
	}
	start := time.Now()
	info, err := writeBackup(ctx, db, dst)
	if err != nil {
		return err
	}
	took := time.Since(start)
	verdict := "not checked"
	if check {
		if problems := checkCopy(ctx, dst); len(problems) > 0 {
			return reportProblems(e, dst, problems)
		}
		verdict = "check ok"
	}
	fmt.Fprintf(e.stdout, "backup %s: %s; %s\n", termSafe(dst, false), backupSummary(info, took), verdict)
	return nil
}

func backupSummary(info store.BackupInfo, took time.Duration) string {
	return fmt.Sprintf("%d documents, %d passages, %s in %s", info.Totals.Documents, info.Totals.Passages,
		bytesize.Format(info.Bytes), took.Round(time.Millisecond))
}

// writeBackup copies db to dst through dst.tmp: written, synced, renamed
// over dst, and the folder synced, so dst is the old file or the whole
// new one.
func writeBackup(ctx context.Context, db *store.DB, dst string) (store.BackupInfo, error) {
	tmp := dst + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return store.BackupInfo{}, fmt.Errorf("backup: %w", err)
	}
	info, err := writeSynced(f, func(w io.Writer) (store.BackupInfo, error) { return db.Backup(ctxWriter{ctx, w}) })
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return info, failf("backup to %s: %w", dst, err)
	}
	syncDir(filepath.Dir(dst))
	return info, nil
}

// ctxWriter is w until ctx ends, and then fails every Write, so a copy
// stops when its command is cancelled (Ctrl-C, a server shutting down).
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// writeSynced runs write into f through a buffer, then syncs and closes f.
func writeSynced(f *os.File, write func(io.Writer) (store.BackupInfo, error)) (store.BackupInfo, error) {
	bw := bufio.NewWriterSize(f, 1<<20)
	info, err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return info, err
}

// syncDir makes a rename in dir durable; where a folder cannot be synced
// (Windows) the rename stands as the system keeps it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// sameFile reports whether the paths name one existing file.
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// checkCopy opens the library file at path read-only and checks it as
// `mcpvec check` does; it returns the problems (none: it is sound).
func checkCopy(ctx context.Context, path string) []string {
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if errors.Is(err, store.ErrUnwritten) {
		return nil // an empty library: nothing ingested yet
	}
	if err != nil {
		return []string{oneLine(err)}
	}
	defer db.Close()
	return checkDB(ctx, db)
}
