package lexical

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRankIndex: a rank finds every slot of its list at its index in the
// slots and no other slot, at the ends of words and groups, for lists of
// every density, an end on a group's boundary or not, and no slots.
func TestRankIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	for trial := range 200 {
		end := uint32(1 + rng.IntN(3000))
		if trial%5 == 0 {
			end = uint32(256 * (1 + rng.IntN(8)))
		}
		every := 1 + rng.IntN(70) // about one slot in every
		var slots []uint32
		for s := range end {
			if rng.IntN(every) == 0 || trial%7 == 1 && (s == 0 || s == end-1 || s%64 == 63 || s%256 == 0) {
				slots = append(slots, s)
			}
		}
		if trial == 3 {
			slots = nil
		}
		r := rankSlots(slots, end)
		for s := range end + 600 {
			i, ok := r.index(s)
			want, found := slices.BinarySearch(slots, s)
			if ok != found || found && int(i) != want {
				t.Fatalf("trial %d (end %d, %d slots): slot %d: index %d %v, want %d %v", trial, end, len(slots), s, i, ok, want, found)
			}
		}
	}
}
