package server

import (
	"math/bits"
	"sync"
)

// A search's response is built in two buffers the server owns from start
// to end: the JSON of its structured content (encodeResult) and the
// spliced response around it (splice.apply), ~8 and ~15 KB on the scale
// libraries. Made afresh they were a quarter of the bytes a search
// allocated, and under load the bytes a search allocates set how often the
// GC runs. Both are taken from bufPools and given back once written.

// Buffers from 1<<minBufShift to 1<<maxBufShift bytes are pooled, one
// pool per power of two; larger ones (a long fetch, a held body near
// maxHeld) are left to the GC.
const (
	minBufShift = 12 // 4 KB
	maxBufShift = 17 // 128 KB
)

// bufPools[i] holds *[]byte of capacity 1<<(minBufShift+i).
var bufPools [maxBufShift - minBufShift + 1]sync.Pool

// getBuf returns an empty buffer of capacity at least n, pooled when one
// of that size is free. It is safe for concurrent use.
func getBuf(n int) []byte {
	shift := max(minBufShift, bits.Len(uint(max(n, 1)-1)))
	if shift > maxBufShift {
		return make([]byte, 0, n)
	}
	if p, ok := bufPools[shift-minBufShift].Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, 1<<shift)
}

// putBuf gives b back for getBuf to reuse; nothing may use b afterwards.
// A buffer of a capacity no pool holds is dropped. It is safe for
// concurrent use.
func putBuf(b []byte) {
	shift := bits.Len(uint(cap(b))) - 1 // the largest class b can serve
	if shift < minBufShift || shift > maxBufShift {
		return
	}
	b = b[: 0 : 1<<shift]
	bufPools[shift-minBufShift].Put(&b)
}
