package client

import (
	"net/http"
	"testing"
)

func TestKeyOf(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:5000": "127.0.0.1", "[::ffff:10.0.0.1]:1": "10.0.0.1",
		"[2001:db8:1:2:3:4:5:6]:80": "2001:db8:1:2::/64", "[2001:db8:1:2:ffff::1]:81": "2001:db8:1:2::/64",
		"pipe": "pipe",
	} {
		if got := KeyOf(in); got != want {
			t.Errorf("KeyOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGate(t *testing.T) {
	g := NewGate(2, 3)
	for i := range 2 { // two slots, each acquired on its own
		if !g.Acquire("a") {
			t.Fatalf("a refused its slot %d under its cap", i+1)
		}
	}
	if g.Acquire("a") {
		t.Fatal("a got a third slot")
	}
	if !g.Acquire("b") {
		t.Fatal("b refused under the ceiling")
	}
	if g.Acquire("c") {
		t.Fatal("c got a slot over the ceiling")
	}
	g.Release("a")
	if !g.Acquire("c") {
		t.Fatal("c refused after a release")
	}
	if got, want := g.Held("a"), 1; got != want {
		t.Fatalf("Held(a) = %d, want %d", got, want)
	}
}

// TestKeySetsTunnelTrafficApart: behind a tunnel every request comes from
// 127.0.0.1 with the public Host; the owner on the machine itself (a
// loopback Host) must not share a key, and so limits, with them.
func TestKeySetsTunnelTrafficApart(t *testing.T) {
	for _, c := range []struct{ remote, host, want string }{
		{"127.0.0.1:5000", "127.0.0.1:8080", "127.0.0.1"},
		{"127.0.0.1:5000", "localhost:8080", "127.0.0.1"},
		{"[::1]:5000", "[::1]:8080", "::/64"},
		{"[::1]:5000", "lib.example.com", "::/64 via lib.example.com"},
		{"127.0.0.1:5000", "", "127.0.0.1"},
		{"127.0.0.1:5000", "Lib.Example.COM", "127.0.0.1 via lib.example.com"},
		{"127.0.0.1:5000", "lib.example.com:443", "127.0.0.1 via lib.example.com"},
		{"203.0.113.9:5000", "lib.example.com", "203.0.113.9"},
	} {
		r := &http.Request{RemoteAddr: c.remote, Host: c.host}
		if got := Key(r); got != c.want {
			t.Errorf("Key(%s, Host %q) = %q, want %q", c.remote, c.host, got, c.want)
		}
	}
}
