package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// runRestore puts a backup in place of the library file: the backup is
// checked first (a damaged file, or one a newer mcpvec wrote, is refused),
// copied beside the library, and renamed over it while this command holds
// the library's lock; the current file is kept aside as
// LIB.before-restore-TIMESTAMP. A running server or ingest holding the
// library is not handed the restore (it would serve a file it no longer
// has open): the user is told to stop it.
func runRestore(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("restore", "[--db LIB] FILE", e)
	pos, err := parseArgs(fs, args, e, one)
	if err != nil {
		return err
	}
	if e.forwarded != nil {
		return errors.New("restore needs the library to itself: stop `mcpvec serve` first")
	}
	if err := lf.needFile(e, "restore replaces a library file; a Weaviate collection is filled with `mcpvec import`"); err != nil {
		return err
	}
	lib, err := lf.path(e)
	if err != nil {
		return err
	}
	src := absPath(e, pos[0])
	if sameFile(src, lib) {
		return fmt.Errorf("restore: %s is the library itself", src)
	}
	if err := verifyBackup(ctx, src); err != nil {
		return err
	}
	return restoreOver(ctx, e, src, lib)
}

// verifyBackup refuses a backup that is not a sound library this mcpvec
// reads, with one line saying why.
func verifyBackup(ctx context.Context, src string) error {
	db, err := store.Open(src, &store.Options{ReadOnly: true})
	switch {
	case errors.Is(err, store.ErrSchema):
		return fmt.Errorf("refusing to restore %s: %v", src, err)
	case err != nil:
		return fmt.Errorf("refusing to restore %s: not a readable library: %v", src, oneLine(err))
	}
	problems := checkDB(ctx, db)
	db.Close()
	if len(problems) > 0 {
		return fmt.Errorf("refusing to restore %s: it does not pass check: %s", src, strings.Join(problems, "; "))
	}
	return nil
}

// restoreOver copies src beside lib and renames it over lib while holding
// lib's lock, keeping the current file aside.
func restoreOver(ctx context.Context, e *env, src, lib string) error {
	if err := os.MkdirAll(filepath.Dir(lib), 0o700); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	var held *store.DB
	if _, err := os.Stat(lib); err == nil {
		db, err := openFile(ctx, e, lib, true, -1)
		var fw *forwardTo
		switch {
		case errors.As(err, &fw), errors.Is(err, errBusy):
			if fw != nil {
				holder, pid := fw.client.Holder()
				return fmt.Errorf("restore: a running `mcpvec %s` (PID %d) holds %s; stop it, run restore, then start it again", orServe(holder), pid, lib)
			}
			return fmt.Errorf("restore: %w; stop it first", err)
		case err != nil:
			return fmt.Errorf("restore: %w", err)
		}
		held = db
	}
	tmp := lib + ".restore.tmp"
	if err := copySynced(src, tmp); err != nil {
		if held != nil {
			held.Close()
		}
		return failf("restore: %w", err)
	}
	aside, err := swapIn(tmp, lib, held != nil, time.Now())
	if held != nil {
		held.Close()
	}
	if err != nil {
		os.Remove(tmp)
		return failf("restore: %w", err)
	}
	fmt.Fprintf(e.stdout, "restored %s from %s\n", termSafe(lib, false), termSafe(src, false))
	if aside != "" {
		fmt.Fprintf(e.stdout, "the library it replaced is kept at %s\n", termSafe(aside, false))
	}
	return nil
}

func orServe(holder string) string {
	if holder == "" {
		return "serve"
	}
	return holder
}

// swapIn puts tmp at lib. With an existing lib, the current file is first
// linked (or, where links are not supported, copied) to
// lib.before-restore-TIMESTAMP, so lib is at every moment either the old
// file or the new one; it returns that path.
func swapIn(tmp, lib string, exists bool, now time.Time) (string, error) {
	aside := ""
	if exists {
		aside = fmt.Sprintf("%s.before-restore-%s", lib, now.UTC().Format("20060102T150405Z"))
		if err := os.Link(lib, aside); err != nil {
			if err := copySynced(lib, aside); err != nil {
				return "", fmt.Errorf("keep the current library aside: %w", err)
			}
		}
	}
	if err := os.Rename(tmp, lib); err != nil {
		return "", err
	}
	syncDir(filepath.Dir(lib))
	return aside, nil
}

// copySynced copies src to dst (created 0600), synced.
func copySynced(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}
