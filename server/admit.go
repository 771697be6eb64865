package server

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
)

// maxSearchesWaiting bounds the searches waiting for a turn.
const maxSearchesWaiting = 1024

// errBusy is what a search gets when too many wait for a turn already.
var errBusy = errors.New("too many searches waiting")

// admission lets at most n searches run at once, whole (ranking, result
// assembly, snippets, encoding), the others waiting in arrival order (a
// channel's blocked senders are served first come, first served). A
// search is CPU work from start to end: with 16 running on 2 CPUs each is
// time-sliced against the other 15 and every one of them finishes late;
// in turns, each finishes in about its own time after its wait, so the
// slowest calls (p99) come down towards what queueing alone implies. The
// backend's own gate (library/embedded's turns) covers the ranking only.
// At most maxWait wait; beyond that a search is refused at once (errBusy)
// rather than queue without bound. Safe for concurrent use.
type admission struct {
	slots   chan struct{}
	waiting atomic.Int64
	maxWait int64
}

// newAdmission admits n searches at once (GOMAXPROCS when n ≤ 0) and lets
// maxWait wait.
func newAdmission(n, maxWait int) *admission {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return &admission{slots: make(chan struct{}, n), maxWait: int64(maxWait)}
}

// enter waits for a turn while ctx allows; the error wraps errBusy or
// ctx's. A nil error must be followed by leave.
func (a *admission) enter(ctx context.Context) error {
	select {
	case a.slots <- struct{}{}:
		return nil
	default:
	}
	if a.waiting.Add(1) > a.maxWait {
		a.waiting.Add(-1)
		return fmt.Errorf("%w (%d)", errBusy, a.maxWait)
	}
	defer a.waiting.Add(-1)
	select {
	case a.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for a turn to search: %w", ctx.Err())
	}
}

// leave gives back the turn enter took.
func (a *admission) leave() { <-a.slots }
