package library

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestScansAgreeWithBytewise checks the eight-byte scans against a plain
// loop over every byte (and utf8.RuneCountInString) on random strings of
// every byte value, weighted towards the bytes the masks single out, from
// every start.
func TestScansAgreeWithBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("aAzZ09@[`{/:.?!\n \x00\x7f\x80\xbf\xc3\xa9\xe2\x80\xa6\xff")
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		s := string(b)
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
		}
		for i := 0; i <= len(s); i++ {
			end, may := i, i
			for end < len(s) && asciiWord[s[end]] {
				end++
			}
			for may < len(s) && !mayEndSentence[s[may]] {
				may++
			}
			if got := asciiWordEnd(s, i); got != end {
				t.Fatalf("asciiWordEnd(%q, %d) = %d, want %d", s, i, got, end)
			}
			if got := nextMayEnd(s, i); got != may {
				t.Fatalf("nextMayEnd(%q, %d) = %d, want %d", s, i, got, may)
			}
		}
	}
}

// TestScansEveryByte checks the masks on each of the 256 byte values at
// each position of a word.
func TestScansEveryByte(t *testing.T) {
	for c := range 256 {
		for pos := range 8 {
			b := []byte("aaaaaaaaaaaaaaaa")
			b[pos] = byte(c)
			s := string(b)
			wantEnd := len(s)
			if !asciiWord[c] {
				wantEnd = pos
			}
			if got := asciiWordEnd(s, 0); got != wantEnd {
				t.Errorf("asciiWordEnd with byte %#x at %d = %d, want %d", c, pos, got, wantEnd)
			}
			wantMay := len(s)
			if mayEndSentence[c] {
				wantMay = pos
			}
			if got := nextMayEnd(s, 0); got != wantMay {
				t.Errorf("nextMayEnd with byte %#x at %d = %d, want %d", c, pos, got, wantMay)
			}
		}
	}
}
