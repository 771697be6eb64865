package analysis

import (
	"unicode"
	"unicode/utf8"
)

// CostPerToken is the number of centitokens in a token: Atom costs, RuneCost
// and AtomCost are in centitokens.
const CostPerToken = 100

// Costs are kept in centitokens (1/100 of a token) so that fractional
// per-character costs add up exactly: the estimate of a string is the sum of
// its atoms' costs, rounded up once at the end. The chunker (ingest/chunk)
// prices pieces of an over-long word with the costs the runes have inside the
// whole word; as no rune gets cheaper by moving later in a run, the estimate
// of any chunk's text is at most the sum the chunker computed, so chunks
// never exceed its Options.Size.
//
// The numbers were fitted against the cl100k_base tokenizer on SciFact and
// Cranfield (see doc.go); change them together with the measurement.
const (
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

// Class is the kind of an Atom; runs of the same Class form one Atom, except
// for kinds that are one Atom per character.
type Class uint8

const (
	ClassSpace   Class = iota // whitespace: between atoms, never one
	ClassWord                 // letters, marks and connectors: a run
	ClassDigit                // a run of decimal digits
	ClassPunct                // one punctuation or symbol character
	ClassCJK                  // one ideograph, kana or Hangul character
	ClassInvalid              // one byte of invalid UTF-8
)

// Atom is a maximal run of non-space text that EstimateTokens prices as a
// unit.
type Atom struct {
	Start, End int // byte offsets
	Cost       int // centitokens, excluding the whitespace before it
	Class      Class
}

// classify returns the Class of r.
func classify(r rune, size int) Class {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	switch {
	case r == utf8.RuneError && size <= 1:
		return ClassInvalid
	case unicode.IsSpace(r):
		return ClassSpace
	case isCJK(r):
		return ClassCJK
	case r >= '0' && r <= '9':
		return ClassDigit
	case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
		return ClassWord
	default:
		return ClassPunct
	}
}

// asciiClass is classify for ASCII, precomputed.
var asciiClass = func() (t [utf8.RuneSelf]Class) {
	for r := range t {
		switch {
		case unicode.IsSpace(rune(r)):
			t[r] = ClassSpace
		case r >= '0' && r <= '9':
			t[r] = ClassDigit
		case unicode.IsLetter(rune(r)):
			t[r] = ClassWord
		default:
			t[r] = ClassPunct
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

// RuneCost is the cost of one rune of Class c at 0-based position pos in its
// run; for runs the atom cost is the sum of rune costs, raised to the run
// minimum (see AtomCost). Costs never decrease with pos, so any substring of
// a run costs at most what the same runes cost inside the whole run. size is
// the rune's length in bytes. It is a pure function.
func RuneCost(r rune, size int, c Class, pos int) int {
	switch c {
	case ClassWord:
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
	case ClassDigit:
		return 1
	case ClassPunct:
		if r < utf8.RuneSelf {
			return punctASCII
		}
		return punctPerByte * size
	case ClassCJK:
		return cjkPer
	case ClassInvalid:
		return invalidByte
	}
	return 0
}

// AtomCost turns the summed RuneCosts of a run of Class c into the run's
// cost. It is a pure function.
func AtomCost(sum int, c Class) int {
	switch {
	case c == ClassWord && sum < wordMin:
		return wordMin
	case c == ClassDigit: // sum is the number of digits
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

// isRun reports whether consecutive runes of Class c join into one atom.
func isRun(c Class) bool { return c == ClassWord || c == ClassDigit }

// Atomize calls yield for each Atom of s, in order, with the cost of the
// whitespace before it, and returns the cost of the trailing whitespace; the
// costs add up to EstimateTokens(s) in centitokens. It is safe for
// concurrent use if yield is.
func Atomize(s string, yield func(a Atom, gap int)) (trailing int) {
	i, spaceStart := 0, 0
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		c := classify(r, size)
		if c == ClassSpace {
			i += size
			continue
		}
		gap := spaceCost(s[spaceStart:i])
		if c == ClassDigit && gap == spaceNone && spaceStart < i {
			gap = spaceMin // cl100k keeps the space before a number as its own token
		}
		start, sum, pos := i, RuneCost(r, size, c, 0), 1
		i += size
		for isRun(c) && i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
			if classify(r, size) != c {
				break
			}
			sum += RuneCost(r, size, c, pos)
			i, pos = i+size, pos+1
		}
		yield(Atom{Start: start, End: i, Cost: AtomCost(sum, c), Class: c}, gap)
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
	total += Atomize(s, func(a Atom, gap int) { total += a.Cost + gap })
	return (total + CostPerToken - 1) / CostPerToken
}
