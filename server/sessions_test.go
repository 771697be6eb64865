package server

import (
	"sync"
	"testing"
	"time"
)

// TestValidateSharesTheTable: a request validating its session does not
// wait for another request that is inside the table's lock as a reader
// (one whose thread the host descheduled there); and validations of one
// session from many goroutines, with sessions made, evicted and swept
// meanwhile, keep a consistent table (run with -race).
func TestValidateSharesTheTable(t *testing.T) {
	tab := newSessionTable(8, func(string) {})
	tab.idle = time.Hour
	id := tab.generate("c")
	tab.mu.RLock() // a Validate in progress, stalled
	done := make(chan error, 1)
	go func() { _, err := tab.Validate(id); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Validate waited for another request holding the table")
	}
	tab.mu.RUnlock()

	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				tab.Validate(id)
				tab.isLive(id)
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			tab.generate("other") // past the cap, evicts the idlest: never id, in use
			tab.expired()
		}
	})
	wg.Wait()
	if !tab.isLive(id) {
		t.Fatal("the session in use was evicted or swept")
	}
	if got := tab.live[id].uses.Load(); got != 801 {
		t.Fatalf("%d uses counted, want 801", got)
	}
}
