package server

import (
	"math/rand/v2"
	"testing"
)

// TestBufPool checks that every buffer getBuf hands out is empty and holds
// at least what was asked, however the buffers given back were sized and
// filled.
func TestBufPool(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var held [][]byte
	for range 2000 {
		n := r.IntN(1 << (maxBufShift + 2))
		b := getBuf(n)
		if len(b) != 0 || cap(b) < n {
			t.Fatalf("getBuf(%d): len %d cap %d", n, len(b), cap(b))
		}
		held = append(held, append(b, make([]byte, r.IntN(cap(b)+1))...))
		if r.IntN(2) == 0 {
			i := r.IntN(len(held))
			putBuf(held[i])
			held = append(held[:i], held[i+1:]...)
		}
	}
	for _, b := range [][]byte{nil, make([]byte, 0, 5000), make([]byte, 10, 1<<maxBufShift+1)} {
		putBuf(b) // sizes between and beyond the classes
	}
	for n := range 1 << (maxBufShift + 1) / 1000 {
		if b := getBuf(n * 1000); len(b) != 0 || cap(b) < n*1000 {
			t.Fatalf("getBuf(%d): len %d cap %d", n*1000, len(b), cap(b))
		}
	}
}
