package main

import "runtime"

// searchTurns is how many BM25 and vector searches a server runs at once
// (library.Options.Concurrency; 0: GOMAXPROCS). Set once by main.
var searchTurns int

// spareProc gives `mcpvec serve` one more P than it lets searches use, unless
// GOMAXPROCS is set (then the user's setting stands and searches take turns
// on all of it). It returns the searches' share: the CPUs the runtime had.
//
// Why: when every P is busy, the Go runtime looks for network readiness
// only when a P runs out of work, or in sysmon every 10 ms, after which the
// goroutines it finds wait in the global queue, looked at once in 61
// schedules. Searches taking turns keep both Ps of a 2-CPU machine busy
// under load, handing each turn straight to the next waiter, so new requests
// sat unread in their sockets: at 16 clients and 100k passages the slowest
// calls waited 130–510 ms before their handler started, whose own p99 was
// 21–24 ms. With a P that no search may hold, requests are read as they
// come and queue for a turn in arrival order
// (docs/benchmarks/serving.md#waits-and-spare-p): on this project's 2-CPU
// machine the 16-client p99 fell 2–4× and the rate ~8% (100k passages) to
// ~25% (1M), where the third thread
// takes CPU time from the searches. GOMAXPROCS=2 there chooses the rate.
func spareProc(args []string, getenv func(string) string) int {
	if len(args) < 2 || args[1] != "serve" || getenv("GOMAXPROCS") != "" {
		return 0
	}
	n := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(n + 1)
	return n
}
