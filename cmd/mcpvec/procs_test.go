package main

import (
	"runtime"

	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

func TestSpareProc(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(n)
	unset := func(string) string { return "" }
	for _, args := range [][]string{{"mcpvec"}, {"mcpvec", "search", "x"}, {"mcpvec", "ingest", "serve"}} {
		if got := spareProc(args, unset); got != 0 || runtime.GOMAXPROCS(0) != n {
			t.Fatalf("spareProc(%q) = %d, GOMAXPROCS %d; want 0 and %d untouched", args, got, runtime.GOMAXPROCS(0), n)
		}
	}
	set := func(k string) string {
		if k == "GOMAXPROCS" {
			return "3"
		}
		return ""
	}
	if got := spareProc([]string{"mcpvec", "serve"}, set); got != 0 || runtime.GOMAXPROCS(0) != n {
		t.Fatalf("with GOMAXPROCS set: %d, GOMAXPROCS %d; want 0 and %d untouched", got, runtime.GOMAXPROCS(0), n)
	}
	if got := spareProc([]string{"mcpvec", "serve", "--addr", ":0"}, unset); got != n || runtime.GOMAXPROCS(0) != n+1 {
		t.Fatalf("serve: %d, GOMAXPROCS %d; want %d searches on %d Ps", got, runtime.GOMAXPROCS(0), n, n+1)
	}
}

func TestLibOptionsTakeSearchTurns(t *testing.T) {
	defer func(v int) { searchTurns = v }(searchTurns)
	searchTurns = 3
	if c := libOptions(nil).Concurrency; c != 3 {
		t.Fatalf("libOptions(nil).Concurrency = %d, want 3", c)
	}
	if o := libOptions(embed.NewHash(embed.HashConfig{})); o.Concurrency != 3 || o.UseIDF == nil {
		t.Fatalf("libOptions(hash): Concurrency %d, UseIDF set %v; want 3 and set", o.Concurrency, o.UseIDF != nil)
	}
}
