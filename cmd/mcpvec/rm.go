package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/mcpvec/mcpvec/library"
)

func runRm(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("rm", "[flags] ID|PATH...", e)
	pos, err := parseArgs(fs, args, e, some)
	if err != nil {
		return err
	}
	return withLibrary(ctx, e, lf, append([]string{"rm"}, args...), true, needSearch, func(h *handle) error {
		defer hostReads(ctx, e, h, "rm")()
		var failed error
		for _, a := range pos {
			// Each document is its own transaction: one that cannot be
			// removed is reported and the rest are tried (on a full disk
			// a removal can free pages).
			if err := removeDoc(ctx, e, h, a); err != nil {
				printError(e.stderr, err)
				failed = errReported
			}
		}
		if err := h.lib.Save(ctx); err != nil {
			return failf("save indexes (the removals are committed; the indexes are rebuilt from the store on the next open): %w", diskFull(err))
		}
		return failed
	})
}

// removeDoc removes the document with id or ingested path a and says so.
func removeDoc(ctx context.Context, e *env, h *handle, a string) error {
	id := a
	if d, err := h.docs.DocumentByPath(ctx, absPath(e, a)); err == nil {
		id = d.ID
	}
	removed, err := h.lib.Remove(ctx, id)
	if errors.Is(err, library.ErrNotFound) {
		return fmt.Errorf("%s: no such document id or ingested path", termSafe(a, false))
	}
	if err != nil {
		return failf("rm %s: %w", a, diskFull(err))
	}
	fmt.Fprintf(e.stdout, "removed %s (%d passages)\n", id, removed)
	return nil
}

// diskFull adds what to do to an error caused by a full disk.
func diskFull(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w (the disk is full: free some space and run the command again)", err)
	}
	return err
}
