package embedded

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTurnsLimit: no more than the gate's turns run at once, and every
// caller gets one.
func TestTurnsLimit(t *testing.T) {
	g := newTurns(2)
	var running, most, ran atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := g.run(context.Background(), func() {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				running.Add(-1)
				ran.Add(1)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if most.Load() > 2 || ran.Load() != 20 {
		t.Fatalf("%d ran, at most %d at once; want 20, at most 2", ran.Load(), most.Load())
	}
}

// TestTurnsCancel: a caller whose context ends while it waits gets the
// context's error and does not run.
func TestTurnsCancel(t *testing.T) {
	g := newTurns(1)
	if err := g.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	called := false
	err := g.run(ctx, func() { called = true })
	if !errors.Is(err, context.DeadlineExceeded) || called {
		t.Fatalf("run with every turn taken: err %v, called %v; want DeadlineExceeded, not called", err, called)
	}
	g.done()
	if err := g.run(context.Background(), func() { called = true }); err != nil || !called {
		t.Fatalf("run with a free turn: err %v, called %v", err, called)
	}
}

// TestTurnsPanic: a panicking search gives its turn back.
func TestTurnsPanic(t *testing.T) {
	g := newTurns(1)
	func() {
		defer func() { _ = recover() }()
		_ = g.run(context.Background(), func() { panic("search failed") })
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := g.run(ctx, func() {}); err != nil {
		t.Fatalf("the turn was not given back: %v", err)
	}
}

// TestTurnsDefault: without a number the gate has GOMAXPROCS turns.
func TestTurnsDefault(t *testing.T) {
	if got, want := cap(newTurns(0)), runtime.GOMAXPROCS(0); got != want {
		t.Fatalf("%d turns, want %d", got, want)
	}
}
