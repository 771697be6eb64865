package library

import (
	"strings"
	"unicode/utf8"
)

// bestSentence returns the sentences of text, split at sentence ends and
// paragraph breaks into [start,end) byte ranges, and the index of
// the one that holds the most distinct query terms (the first on a tie),
// in one pass that splits and scores: a word (a run of letters and digits)
// matches a term when, lower-cased, it starts with the term's stem (stems
// are mostly prefixes: "attached" → "attach"; Snowball's "y" → "i" is
// undone). This avoids stemming every word of every result, which
// dominated search time. ASCII is compared case-insensitively in place, an
// ASCII word whose first two letters start no stem is not compared
// (termSet.pairs), the rest of a sentence that holds every term is
// skipped, and once one does, the rest of text is only split.
func bestSentence(text string, terms *termSet) ([][2]int, int) {
	return bestSentenceIn(nil, text, terms)
}

// bestSentenceIn is bestSentence returning the sentences in buf[:0], grown
// as needed (so a caller can reuse one slice for many texts).
func bestSentenceIn(buf [][2]int, text string, terms *termSet) ([][2]int, int) {
	if buf == nil {
		buf = make([][2]int, 0, len(text)/100+1) // grown by append, it would be made five times
	}
	sc := sentenceScan{text: text, terms: terms, sents: buf[:0], bestScore: -1}
	from := sc.scan()
	return appendSentences(sc.sents, text, from), sc.best
}

// sentenceScan is the state of bestSentence's pass.
type sentenceScan struct {
	text  string
	terms *termSet
	sents [][2]int
	// best is the index in sents of the sentence with the most terms,
	// bestScore their number (-1 before the first sentence).
	best, bestScore int
}

// scan splits and scores sentences until one holds every term or text
// ends, and returns where the sentence after the last one it split starts.
func (sc *sentenceScan) scan() int {
	text, all := sc.text, len(sc.terms.stems)
	start, n := 0, 0 // the current sentence and its distinct terms
	// seen[t]: the current sentence holds term t (a local: the compiler
	// keeps a few bytes of it off the heap).
	seen := make([]bool, all)
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && !asciiWord[c] {
			if end := sentenceEnd(text, i); end > start {
				if sc.add(start, end, n) == all {
					return end // no later sentence can hold more, and ties go to the first
				}
				start, n = end, 0
				clear(seen)
			}
			i++
			continue
		}
		if n == all {
			i = nextMayEnd(text, i) // words cannot end a sentence
			continue
		}
		j, ascii := wordAt(text, i)
		if j < 0 {
			i -= j
			continue
		}
		n += sc.terms.matchWord(text[i:j], ascii, seen)
		i = j
	}
	if start < len(text) {
		sc.add(start, len(text), n)
	}
	return len(text)
}

// add appends the sentence [start,end) holding n distinct terms, keeps it
// if it is the best so far, and returns the best score.
func (sc *sentenceScan) add(start, end, n int) int {
	sc.sents = append(sc.sents, [2]int{start, end})
	if n > sc.bestScore {
		sc.best, sc.bestScore = len(sc.sents)-1, n
	}
	return sc.bestScore
}

// matchWord marks and counts the terms the word w (letters and digits;
// ascii: all ASCII) starts with that seen does not hold yet.
func (ts *termSet) matchWord(w string, ascii bool, seen []bool) int {
	switch c := w[0]; {
	case !ascii:
		if c >= utf8.RuneSelf || ts.first[c|0x20] || ts.first[c] || ts.anyInfix {
			return ts.match(strings.ToLower(w), seen)
		}
	case ts.pairs.has(w):
		return ts.matchASCII(w, seen)
	}
	return 0
}

// appendSentences appends the sentences of text[start:] to out: text is
// split after ., ? and ! before a space or line break, and before "\n\n".
func appendSentences(out [][2]int, text string, start int) [][2]int {
	for i := nextMayEnd(text, start); i < len(text); i = nextMayEnd(text, i+1) {
		if end := sentenceEnd(text, i); end > start {
			out = append(out, [2]int{start, end})
			start = end
		}
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// sentenceEnd returns where a sentence ends when the byte text[i] ends one
// (after ., ? or ! before a space or line break) or starts a paragraph
// break (before "\n\n"), else -1.
func sentenceEnd(text string, i int) int {
	c := text[i]
	switch {
	case !mayEndSentence[c] || i+1 == len(text):
	case c == '\n':
		if text[i+1] == '\n' {
			return i
		}
	case text[i+1] == ' ' || text[i+1] == '\n':
		return i + 1
	}
	return -1
}

// mayEndSentence[c]: the byte c may end a sentence or start a paragraph
// break; the scans pass over every other byte (nextMayEnd).
var mayEndSentence = [256]bool{'.': true, '?': true, '!': true, '\n': true}
