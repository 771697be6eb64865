package synth

import (
	"strings"
	"testing"
)

func TestDeterministic(t *testing.T) {
	a, b := New(1, 250, 16), New(1, 250, 16)
	if a.Text(7) != b.Text(7) || a.Query(3, 100) != b.Query(3, 100) {
		t.Fatal("same seed, different text")
	}
	if n := len(strings.Fields(a.Text(7))); n < 125 || n > 375 {
		t.Fatalf("passage of %d words", n)
	}
	t.Log(a.Text(7)[:200], "|", a.Query(3, 100))
}

func BenchmarkText(b *testing.B) {
	c := New(1, 250, 16)
	for i := range b.N {
		c.Text(uint64(i))
	}
}
