package main

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/mcpvec/mcpvec/library"
)

func runRm(ctx context.Context, e *env, args []string) int {
	fs, lf := libFlagSet("rm", "[flags] ID|PATH...", e)
	pos, st, ok := parseArgs(fs, args, e, some)
	if !ok {
		return st
	}
	h, st := openOrForward(ctx, e, lf, "rm", args, true, needSearch)
	if h == nil {
		return st
	}
	defer h.close()
	defer hostReads(ctx, e, h, "rm")()
	status := 0
	for _, a := range pos {
		id := a
		if d, err := h.docs.DocumentByPath(absPath(e, a)); err == nil {
			id = d.ID
		}
		removed, err := h.lib.Remove(id)
		if errors.Is(err, library.ErrNotFound) {
			fmt.Fprintf(e.stderr, "mcpvec: %s: no such document id or ingested path\n", termSafe(a, false))
			status = 1
			continue
		}
		if err != nil {
			// Each document is its own transaction: report this one and
			// try the rest (on a full disk a removal can free pages).
			errorf(e, "rm %s: %v", a, diskFull(err))
			status = 1
			continue
		}
		fmt.Fprintf(e.stdout, "removed %s (%d passages)\n", id, removed)
	}
	if err := h.lib.Save(); err != nil {
		return errorf(e, "save indexes (the removals are committed; the indexes are rebuilt from the store on the next open): %v", diskFull(err))
	}
	return status
}

// diskFull adds what to do to an error caused by a full disk.
func diskFull(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w (the disk is full: free some space and run the command again)", err)
	}
	return err
}
