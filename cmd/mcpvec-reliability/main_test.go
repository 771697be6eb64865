package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestReliabilityShort runs the short campaign against the real binary and
// asserts the memory bound. MCPVEC_RELIABILITY=full runs the issue-sized one.
func TestReliabilityShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and serves the real binary")
	}
	c := shortSize
	if os.Getenv("MCPVEC_RELIABILITY") == "full" {
		c = fullSize
	}
	f, err := run(context.Background(), c, testOutput{t})
	if err != nil {
		t.Fatal(err)
	}
	if f.Peak > c.BoundBytes {
		t.Errorf("server peak RSS %d MB, want at most %d MB", f.Peak>>20, c.BoundBytes>>20)
	}
	if n := f.errorCount(); n != 0 {
		t.Errorf("%d errors: %d failed requests, fuzz %+v, kills %+v, disk %+v", n, f.Errors, f.Fuzz, f.Kills, f.Disk)
	}
	if n := f.Kills.Kills + f.Kills.Finished; n != 4*c.Kills || f.Kills.Checks != n || f.Kills.Kills < c.Kills {
		t.Errorf("kills %d (+%d finished), checks %d, want %d rounds checked, at least %d killed", f.Kills.Kills, f.Kills.Finished, f.Kills.Checks, 4*c.Kills, c.Kills)
	}
	if f.LastSessionStatus != 200 {
		t.Errorf("tools/list on the newest session: status %d, want 200", f.LastSessionStatus)
	}
}

type testOutput struct{ t *testing.T }

func (w testOutput) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
