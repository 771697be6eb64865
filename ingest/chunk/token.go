package chunk

import (
	"unicode"
	"unicode/utf8"
)

// Costs are kept in centitokens (1/100 of a token) so that fractional
// per-character costs add up exactly: the estimate of a string is the sum of
// its atoms' costs, rounded up once at the end. The chunker prices pieces of
// an over-long word with the costs the runes have inside the whole word; as
// no rune gets cheaper by moving later in a run, the estimate of any chunk's
// text is at most the sum the chunker computed, so chunks never exceed
// Options.Size.
//
// The numbers were fitted against the cl100k_base tokenizer on SciFact and
// Cranfield (see doc.go); change them together with the measurement.
const (
	unit = 100 // centitokens per token

	wordMin      = 100 // a letter run costs at least one token ...
	wordPerLower = 22  // ... or this much per ASCII lowercase letter if more
	wordPerUpper = 40  // ... and per ASCII capital (acronyms split into short pieces)
	wordPerLatin = 55  // ... per accented Latin or Cyrillic letter
	wordPerByte  = 50  // ... per UTF-8 byte of letters in other scripts (Greek, Arabic, Devanagari, ...)
	wordLongFrom = 12  // letters after the 12th of a word ...
	wordLongPer  = 12  // ... cost this much more: rare long words split into short pieces
	digitGroup   = 100 // cl100k splits digit runs into groups of at most three
	punctASCII   = 100 // ASCII punctuation and symbols: one token each
	punctPerByte = 50  // other symbols (bullets, dashes, emoji): half a token per UTF-8 byte
	cjkPer       = 150 // Han, kana, Hangul: one and a half tokens per character
	invalidByte  = 100 // a byte that is not valid UTF-8
	spaceNone    = 0   // a single space is absorbed into the next word's token
	spacePer     = 25  // other whitespace: a token per four characters ...
	spaceMin     = 100 // ... but at least one
)

// class is the kind of an atom; runs of the same class form one atom, except
// for kinds that are one atom per character.
type class uint8

const (
	classSpace   class = iota
	classWord          // letters, marks and connectors: a run
	classDigit         // a run of decimal digits
	classPunct         // one punctuation or symbol character
	classCJK           // one ideograph, kana or Hangul character
	classInvalid       // one byte of invalid UTF-8
)

// atom is a maximal run of non-space text that the estimator prices as a unit.
type atom struct {
	start, end int // byte offsets
	cost       int // centitokens, excluding the whitespace before it
	class      class
}

// classify returns the class of r.
func classify(r rune, size int) class {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	switch {
	case r == utf8.RuneError && size <= 1:
		return classInvalid
	case unicode.IsSpace(r):
		return classSpace
	case isCJK(r):
		return classCJK
	case r >= '0' && r <= '9':
		return classDigit
	case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
		return classWord
	default:
		return classPunct
	}
}

// asciiClass is classify for ASCII, precomputed.
var asciiClass = func() (t [utf8.RuneSelf]class) {
	for r := range t {
		switch {
		case unicode.IsSpace(rune(r)):
			t[r] = classSpace
		case r >= '0' && r <= '9':
			t[r] = classDigit
		case unicode.IsLetter(rune(r)):
			t[r] = classWord
		default:
			t[r] = classPunct
		}
	}
	return t
}()

// isCJK reports whether r is written without spaces between words.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) ||
		unicode.Is(unicode.Thai, r) || unicode.Is(unicode.Lao, r) ||
		unicode.Is(unicode.Khmer, r) || unicode.Is(unicode.Myanmar, r)
}

// runeCost is the cost of one rune of class c at 0-based position pos in its
// run; for runs the atom cost is the sum of rune costs, raised to the run
// minimum (see atomCost). Costs never decrease with pos, so any substring of
// a run costs at most what the same runes cost inside the whole run.
func runeCost(r rune, size int, c class, pos int) int {
	switch c {
	case classWord:
		extra := 0
		if pos >= wordLongFrom {
			extra = wordLongPer
		}
		switch {
		case r >= 'A' && r <= 'Z':
			return extra + wordPerUpper
		case r < utf8.RuneSelf:
			return extra + wordPerLower
		case r < 0x250 || unicode.Is(unicode.Cyrillic, r):
			return extra + wordPerLatin
		}
		return extra + wordPerByte*size
	case classDigit:
		return 1
	case classPunct:
		if r < utf8.RuneSelf {
			return punctASCII
		}
		return punctPerByte * size
	case classCJK:
		return cjkPer
	case classInvalid:
		return invalidByte
	}
	return 0
}

// atomCost turns the summed rune costs of a run into the run's cost.
func atomCost(sum int, c class) int {
	switch {
	case c == classWord && sum < wordMin:
		return wordMin
	case c == classDigit: // sum is the number of digits
		return digitGroup * ((sum + 2) / 3)
	}
	return sum
}

// spaceCost prices a whitespace run of n bytes.
func spaceCost(s string) int {
	if s == " " || s == "" {
		return spaceNone
	}
	return max(spaceMin, spacePer*utf8.RuneCountInString(s))
}

// isRun reports whether consecutive runes of class c join into one atom.
func isRun(c class) bool { return c == classWord || c == classDigit }

// atomize calls yield for each atom of s with the cost of the whitespace
// before it, and returns the cost of the trailing whitespace.
func atomize(s string, yield func(a atom, gap int)) (trailing int) {
	i, spaceStart := 0, 0
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		c := classify(r, size)
		if c == classSpace {
			i += size
			continue
		}
		gap := spaceCost(s[spaceStart:i])
		if c == classDigit && gap == spaceNone && spaceStart < i {
			gap = spaceMin // cl100k keeps the space before a number as its own token
		}
		start, sum, pos := i, runeCost(r, size, c, 0), 1
		i += size
		for isRun(c) && i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
			if classify(r, size) != c {
				break
			}
			sum += runeCost(r, size, c, pos)
			i, pos = i+size, pos+1
		}
		yield(atom{start: start, end: i, cost: atomCost(sum, c), class: c}, gap)
		spaceStart = i
	}
	return spaceCost(s[spaceStart:])
}

// EstimateTokens estimates how many tokens an OpenAI-style BPE tokenizer
// (cl100k_base, used by text-embedding-3-*) produces for s. It errs on the
// high side so that callers can use it to stay under a model's input limit.
//
// The rule, per run of text:
//   - a run of letters costs max(1, sum) tokens, where each lowercase ASCII
//     letter adds 0.22, each capital 0.40, each accented Latin or Cyrillic
//     letter 0.55, and other scripts 0.5 per UTF-8 byte, plus 0.12 for
//     every letter after the twelfth of a word;
//   - a run of digits costs 0.34 tokens per digit (cl100k groups up to three);
//   - each ASCII punctuation or symbol character costs 1 token, other symbols
//     0.5 tokens per UTF-8 byte;
//   - each CJK, kana, Hangul or Thai character costs 1.5 tokens;
//   - a single space costs nothing (BPE merges it into the next word) except
//     before a number (1 token); other whitespace runs cost max(1, 0.25 per
//     character);
//   - each byte of invalid UTF-8 costs 1 token;
//
// and the total is rounded up. See doc.go for its measured error.
// EstimateTokens is safe for concurrent use.
func EstimateTokens(s string) int {
	total := 0
	total += atomize(s, func(a atom, gap int) { total += a.cost + gap })
	return (total + unit - 1) / unit
}
