package admin

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestBesideCommandsSkipTheQueue checks that a command Options.Beside names
// (a server's read) runs while another holds the turn (a forwarded ingest),
// and that the others still wait for it.
func TestBesideCommandsSkipTheQueue(t *testing.T) {
	path := sockPath(t)
	release := make(chan struct{})
	mustListenWith(t, path, func(ctx context.Context, args []string, cwd string, o, e io.Writer) int {
		if args[0] == "write" {
			io.WriteString(o, "running\n")
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return 0
	}, &Options{Beside: func(args []string) bool { return args[0] == "read" }})
	defer close(release)
	firstDone := callRunning(t, path, "write")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var stderr strings.Builder
	if code, err := Call(ctx, path, "", []string{"read"}, "/", io.Discard, &stderr); err != nil || code != 0 {
		t.Fatalf("read beside a write: Call = %d, %v (stderr %q)", code, err, stderr.String())
	}
	if strings.Contains(stderr.String(), "waiting") {
		t.Errorf("the read waited for the write: %q", stderr.String())
	}
	queued := newSyncBuffer("waiting")
	go Call(ctx, path, "", []string{"write"}, "/", io.Discard, queued)
	select {
	case <-queued.seen:
	case <-ctx.Done():
		t.Errorf("a second write was not queued behind the first")
	}
	select {
	case r := <-firstDone:
		t.Fatalf("first write ended early: %v", r.err)
	default:
	}
}
