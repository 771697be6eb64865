package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// repairLibrary is `check --repair`. A file whose store passes its check
// only has its derived indexes rebuilt, in place. A damaged file, or one
// whose store is inconsistent, is never written: every document that can be
// read whole is copied into a new library next to it, and with replace the
// new file takes the old one's name while the damaged file is moved aside.
func repairLibrary(ctx context.Context, e *env, path string, replace bool) error {
	db, err := store.Open(path, &store.Options{ReadOnly: true, Timeout: time.Second})
	switch {
	case errors.Is(err, store.ErrEmpty):
		return failf("%w: there is nothing to recover; remove it, or run `mcpvec ingest` to start a new library there", err)
	case errors.Is(err, store.ErrLocked):
		return failf("%w: stop it before `mcpvec check --repair`", err)
	case errors.Is(err, store.ErrCorrupt):
		fmt.Fprintf(e.stdout, "%s is damaged (%s)\n", termSafe(path, false), termSafe(oneLine(err), false))
		return salvageTo(ctx, e, path, replace)
	case err != nil:
		return err
	}
	problems := splitErr(db.Check())
	db.Close()
	if len(problems) > 0 {
		fmt.Fprintf(e.stdout, "%s: the store has %d problems that cannot be derived\n", termSafe(path, false), len(problems))
		return salvageTo(ctx, e, path, replace)
	}
	return rebuildIndexes(ctx, e, path)
}

// rebuildIndexes drops the persisted vector and lexical indexes and builds
// them again from the stored passages and vectors.
func rebuildIndexes(ctx context.Context, e *env, path string) error {
	db, err := store.Open(path, &store.Options{Timeout: time.Second})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := embedded.DropIndexes(db); err != nil {
		return failf("drop indexes: %w", err)
	}
	lib, err := embedded.Open(ctx, db, nil, library.Options{})
	if err != nil {
		return failf("rebuild indexes: %w", err)
	}
	if err := lib.Save(ctx); err != nil {
		return failf("save indexes: %w", err)
	}
	fmt.Fprintln(e.stdout, "rebuilt the vector and lexical indexes")
	return reportProblems(e, path, checkLive(ctx, db, lib))
}

// salvageTo copies what is readable of path into a new library next to it,
// reports what was lost and, with replace, switches the files.
func salvageTo(ctx context.Context, e *env, path string, replace bool) error {
	now := time.Now()
	dst := repairedName(path, "repaired", now)
	ddb, err := store.Open(dst, nil)
	if err != nil {
		return failf("create %s: %w", dst, err)
	}
	rep, err := store.Salvage(path, ddb)
	if err != nil {
		ddb.Close()
		os.Remove(dst)
		return failf("salvage: %w", err)
	}
	err = finishSalvage(ctx, e, ddb, rep)
	if err := ddb.Close(); err != nil {
		return failf("close %s: %w", dst, err)
	}
	if err != nil {
		return err
	}
	if !replace {
		fmt.Fprintf(e.stdout, "the damaged file is untouched. To switch, rerun with --replace, or:\n  mv %q %q\n", dst, path)
		fmt.Fprintf(e.stdout, "or use the new library as it is with --db %q\n", dst)
		return nil
	}
	aside := repairedName(path, "damaged", now)
	if err := os.Rename(path, aside); err != nil {
		return failf("move the damaged file aside: %w", err)
	}
	if err := os.Rename(dst, path); err != nil {
		return failf("put the repaired library in place: %w (the damaged file is at %s)", err, aside)
	}
	fmt.Fprintf(e.stdout, "%s is now the repaired library; the damaged file is at %s\n", termSafe(path, false), termSafe(aside, false))
	return nil
}

// finishSalvage builds the indexes of the new library, checks it and prints
// what was copied and what was lost.
func finishSalvage(ctx context.Context, e *env, ddb *store.DB, rep store.SalvageReport) error {
	lib, err := embedded.Open(ctx, ddb, nil, library.Options{})
	if err == nil {
		err = lib.Save(ctx)
	}
	if err != nil {
		return failf("build indexes of %s: %w", ddb.Path(), err)
	}
	fmt.Fprintf(e.stdout, "copied %d documents and %d settings into %s\n", rep.Copied, rep.Settings, termSafe(ddb.Path(), false))
	if len(rep.Lost) > 0 {
		fmt.Fprintf(e.stdout, "lost %d documents (unreadable in part):\n", len(rep.Lost))
		for _, id := range rep.Lost {
			fmt.Fprintf(e.stdout, "  %s\n", termSafe(id, false))
		}
	}
	if rep.Incomplete {
		fmt.Fprintln(e.stdout, "the list of documents is itself damaged: documents stored after the damage could not even be named")
	}
	if p := checkLive(ctx, ddb, lib); len(p) > 0 {
		return reportProblems(e, ddb.Path(), p)
	}
	return nil
}
