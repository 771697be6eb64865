package core

import (
	"errors"
	"testing"
)

// TestBudget pins the budget's arithmetic: the factor, the floor, the cap,
// a repeat charged at once without overflow, and that a spent budget stays
// spent.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		size int
		want int64
	}{{1, MinExpansion}, {1 << 20, ExpansionFactor << 20}, {64 << 20, MaxExpansion}, {512 << 20, 1 << 30}} {
		if got := NewBudget(c.size).limit; got != c.want {
			t.Errorf("NewBudget(%d).limit = %d, want %d", c.size, got, c.want)
		}
	}
	b := NewBudget(0)
	if b.TakeN(1<<40, 1<<40) || b.Err() == nil || !errors.Is(b.Err(), ErrExpansion) {
		t.Fatalf("takeN(2^40, 2^40) fitted, err %v", b.Err())
	}
	if b.Take(1) {
		t.Error("a spent budget took one more byte")
	}
	var unlimited *Budget
	if !unlimited.TakeN(1<<40, 1<<40) || unlimited.Err() != nil {
		t.Error("a nil budget is not unlimited")
	}
}
