package embedded

import (
	"context"
	"fmt"
	"runtime"
)

// turns is the embedded backend's admission gate for ranking. A BM25 or
// vector search of the in-memory indexes is CPU work from start to end, so
// running more at once than there are CPUs only interleaves them: the
// scheduler shares the CPUs among all of them, so each takes longer and
// the slowest far longer, and each holds its own scratch memory meanwhile
// (BM25's accumulator and touched slots: ~8 MB a search at a million
// passages). With turns, Options.Concurrency searches run and the rest
// wait their turn in arrival order (a channel's blocked senders are served
// first come, first served), holding no scratch. Embedding the query and
// reading passages for the results happen outside a turn: they wait on
// the network or the disk.
type turns chan struct{}

// newTurns is a gate of n turns, GOMAXPROCS when n is not positive.
func newTurns(n int) turns {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return make(turns, n)
}

// run calls fn in a turn, once one is free, and returns nil; or the wait's
// error without calling fn. The turn is given back even if fn panics.
func (t turns) run(ctx context.Context, fn func()) error {
	if err := t.wait(ctx); err != nil {
		return err
	}
	defer t.done()
	fn()
	return nil
}

// wait takes a turn, waiting for one while ctx allows; the error wraps
// ctx's.
func (t turns) wait(ctx context.Context) error {
	select {
	case t <- struct{}{}:
		return nil
	default:
	}
	select {
	case t <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for a turn to search: %w", ctx.Err())
	}
}

// done gives back a turn wait took.
func (t turns) done() { <-t }
