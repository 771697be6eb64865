package library

import (
	"math/bits"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/internal/swar"
)

// A snippet reads every byte of its passage twice (words and sentence
// ends in bestSentence's pass, then character counts); these scans look at
// eight bytes at a time (package swar), which ASCII text allows.

// wordBytes marks the bytes of w that are ASCII letters or digits
// (asciiWord's bytes).
func wordBytes(w uint64) uint64 {
	// swar.Range written out, so that the compiler inlines wordBytes.
	x := w & swar.Low7
	l := x | swar.Ones*0x20
	letter := (l + swar.Ones*(0x80-'a')) &^ (l + swar.Ones*(0x7f-'z'))
	digit := (x + swar.Ones*(0x80-'0')) &^ (x + swar.Ones*(0x7f-'9'))
	return (letter | digit) &^ w & swar.High
}

// asciiWordEnd returns the index of the first byte of s from i on that is
// not an ASCII letter or digit, or len(s).
func asciiWordEnd(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := ^wordBytes(swar.Load(s[i:])) & swar.High; m != 0 {
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
		w := swar.Load(s[i:])
		m := swar.Equal(w, '.') | swar.Equal(w, '\n') | swar.Equal(w, '?') | swar.Equal(w, '!')
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
		if swar.Load(s[i:])&swar.High == 0 {
			n, i = n+8, i+8
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		n, i = n+1, i+size
	}
	return n + utf8.RuneCountInString(s[i:])
}
