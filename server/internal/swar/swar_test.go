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
