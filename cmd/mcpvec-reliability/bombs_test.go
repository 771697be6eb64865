package main

import (
	"context"
	"os"
	"testing"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// TestBombs ingests issue 35's amplification bombs with the real binary:
// each must be refused as an expansion bomb with a small peak RSS.
// MCPVEC_BOMB_BIN names a prebuilt binary instead (to measure another
// build, e.g. the one before the budget).
func TestBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	ctx := context.Background()
	dir := t.TempDir()
	bin := os.Getenv("MCPVEC_BOMB_BIN")
	if bin == "" {
		root, err := childproc.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		if bin, err = childproc.Build(ctx, root, dir); err != nil {
			t.Fatal(err)
		}
	}
	bf, err := bombs(ctx, bin, dir, testOutput{t})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range bf.Runs {
		if !r.Refused || r.Stopped != "" {
			t.Errorf("%s: not refused as an expansion bomb %s: %q", r.Name, r.Stopped, r.Reported)
		}
		if r.Peak > 300<<20 {
			t.Errorf("%s: peak RSS %d MB, want under 300 MB", r.Name, r.Peak>>20)
		}
	}
}
