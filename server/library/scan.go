package library

import (
	"math/bits"
	"unicode/utf8"
)

// Snippets read every byte of a passage several times (sentence ends,
// words, character counts); these scans look at eight bytes at a time
// (SWAR: bit tricks on a uint64 that hold in every byte at once), which
// ASCII text allows. All bytes of a word hold 0x80 in the masks below
// exactly where the condition holds; no carry crosses a byte because
// every sum is taken on bytes below 0x80.

const (
	lsb  = 0x0101010101010101 // 1 in every byte
	msb  = 0x8080808080808080 // the high bit of every byte
	low7 = 0x7f7f7f7f7f7f7f7f
)

// load64 reads s[0:8] as a little-endian word (the compiler makes it one
// load); s must be at least 8 bytes long.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// inRange marks (0x80) the bytes of x, each below 0x80, from lo to hi.
func inRange(x uint64, lo, hi byte) uint64 {
	ge := x + lsb*uint64(0x80-lo)
	gt := x + lsb*uint64(0x7f-hi)
	return ge &^ gt & msb
}

// wordBytes marks the bytes of w that are ASCII letters or digits
// (asciiWord's bytes).
func wordBytes(w uint64) uint64 {
	x := w & low7
	letter := inRange(x|lsb*0x20, 'a', 'z')
	return (letter | inRange(x, '0', '9')) &^ w
}

// equalBytes marks the bytes of w equal to c.
func equalBytes(w uint64, c byte) uint64 {
	x := w ^ lsb*uint64(c)
	return ^((x&low7 + low7) | x) & msb
}

// asciiWordEnd returns the index of the first byte of s from i on that is
// not an ASCII letter or digit, or len(s).
func asciiWordEnd(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := ^wordBytes(load64(s[i:])) & msb; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && asciiWord[s[i]] {
		i++
	}
	return i
}

// nextMayEnd returns the index of the first byte of s from i on for which
// mayEndSentence holds, or len(s).
func nextMayEnd(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := load64(s[i:])
		m := equalBytes(w, '.') | equalBytes(w, '\n') | equalBytes(w, '?') | equalBytes(w, '!')
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && !mayEndSentence[s[i]] {
		i++
	}
	return i
}

// runeCount is utf8.RuneCountInString(s), eight ASCII bytes at a time.
func runeCount(s string) int {
	n, i := 0, 0
	for i+8 <= len(s) {
		if load64(s[i:])&msb == 0 {
			n, i = n+8, i+8
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n, i = n+1, i+size
	}
	return n + utf8.RuneCountInString(s[i:])
}
