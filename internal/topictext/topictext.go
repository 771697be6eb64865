// Package topictext writes deterministic English-like text on numbered
// topics, for tests of search that need long documents and long queries
// nobody has to keep in testdata: every topic draws on one shared
// vocabulary (and English stop words) and on words of its own, so a text
// on a topic is most like the other texts on it. Its functions are safe
// for concurrent use.
package topictext

import (
	"math/rand/v2"
	"strings"
)

var syllables = []string{"ka", "lo", "mi", "ter", "an", "sol", "vi", "ra", "en", "to", "pre", "qua", "ly", "dis", "ment", "or", "bel", "cu", "nost", "ip"}

var stop = []string{"the", "of", "and", "a", "to", "in", "is", "that", "for", "with"}

// words returns n made-up words drawn with seed.
func words(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		out[i] = b.String()
	}
	return out
}

var common = words(1, 400)

// Text returns chars characters (ASCII) of sentences on topic; seed picks
// which: two seeds give two texts on the same topic.
func Text(topic int, seed uint64, chars int) string {
	own := words(uint64(1000+topic), 80)
	r := rand.New(rand.NewPCG(uint64(topic), seed))
	var b strings.Builder
	for b.Len() < chars {
		n := 8 + r.IntN(9)
		for i := range n {
			var w string
			switch x := r.IntN(10); {
			case x < 3:
				w = stop[r.IntN(len(stop))]
			case x < 5:
				w = own[r.IntN(len(own))]
			default:
				w = common[r.IntN(len(common))]
			}
			if i == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if i < n-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()[:chars]
}

// Greek spells the ASCII letters of s in Greek ones (two bytes each in
// UTF-8, six percent-encoded in a URL), lower case: a text in a script
// other than Latin for the same tests.
func Greek(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'α' + r - 'a'
		case r >= 'A' && r <= 'Z':
			return 'α' + r - 'A'
		}
		return r
	}, s)
}
