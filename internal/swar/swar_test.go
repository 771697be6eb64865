package swar

import (
	"math/bits"
	"testing"
)

// TestMasksEveryByte checks Range and Equal on every byte value at every
// position of a word, the other bytes being every value too in turn.
func TestMasksEveryByte(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			for _, other := range []byte{0, 'a', 0x7f, 0x80, 0xff} {
				b := []byte{other, other, other, other, other, other, other, other}
				b[pos] = byte(c)
				w := Load(string(b))
				if w != Load(b) {
					t.Fatal("Load of a string and of its bytes differ")
				}
				for _, eq := range []byte{0, '"', '\\', 0x7f, 0x80, 0xff} {
					if got, want := Equal(w, eq), mask(b, func(c byte) bool { return c == eq }); got != want {
						t.Fatalf("Equal(%x, %#x) = %x, want %x", w, eq, got, want)
					}
				}
				for _, r := range [][2]byte{{0, 0x1f}, {'0', '9'}, {'a', 'z'}, {0, 0x7f}, {0x7f, 0x7f}} {
					in := func(c byte) bool { return r[0] <= c&0x7f && c&0x7f <= r[1] }
					if got, want := Range(w&Low7, r[0], r[1]), mask(b, in); got != want {
						t.Fatalf("Range(%x, %#x, %#x) = %x, want %x", w&Low7, r[0], r[1], got, want)
					}
				}
			}
		}
	}
	for _, b := range lowest {
		w := Load(b)
		if got, want := lowestMark(Zero(w)), lowestMark(mask(b, func(c byte) bool { return c == 0 })); got != want {
			t.Errorf("Zero(%q) marks %d first, want %d", b, got, want)
		}
		if got, want := lowestMark(Less(w, 0x20)), lowestMark(mask(b, func(c byte) bool { return c < 0x20 })); got != want {
			t.Errorf("Less(%q, 0x20) marks %d first, want %d", b, got, want)
		}
	}
	if i := bits.TrailingZeros64(Equal(Load("abcdefgh"), 'c')) / 8; i != 2 {
		t.Fatalf("first marked byte %d, want 2", i)
	}
}

// mask is the mask of the bytes of b for which f holds, byte by byte.
func mask(b []byte, f func(byte) bool) uint64 {
	var m uint64
	for i, c := range b {
		if f(c) {
			m |= 0x80 << (8 * i)
		}
	}
	return m
}

// lowest are words for Zero and Less: zero and small bytes, alone, in runs
// and below bytes a borrow would wrongly mark, among bytes of every kind.
var lowest = func() (out [][]byte) {
	bytes := []byte{0, 1, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0x81, 0xff, 'a'}
	for _, a := range bytes {
		for _, b := range bytes {
			for pos := range 7 {
				w := []byte("abcdefgh")
				w[pos], w[pos+1] = a, b
				out = append(out, w)
			}
		}
	}
	return out
}()

// lowestMark is the index of the lowest marked byte, 8 when none is.
func lowestMark(m uint64) int { return bits.TrailingZeros64(m) / 8 }
