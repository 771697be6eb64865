package analysis

import "unicode/utf8"

// TruncateTokens returns the longest prefix of text whose token count is
// within limit: text itself when it fits, otherwise a prefix cut on a rune
// boundary and pulled back to the last whitespace when that keeps at least
// half of it. count nil means EstimateTokens. A non-empty text never gives
// "": when not even its first rune fits, that rune is returned alone, so a
// caller cutting a text into pieces always progresses. It is the one place
// that cuts text to a token budget; safe for concurrent use if count is.
func TruncateTokens(text string, limit int, count func(string) int) string {
	if count == nil {
		count = EstimateTokens
	}
	if count(text) <= limit {
		return text
	}
	return text[:prefixLen(text, limit, count)]
}

// prefixLen returns the byte length of the prefix TruncateTokens returns
// for a text over limit.
func prefixLen(text string, limit int, count func(string) int) int {
	// Gallop from a guess of 4 bytes per token so that the cost follows the
	// piece size, not the text size; then binary search over byte offsets,
	// snapped to rune starts.
	lo, hi := 0, len(text) // count(text[:lo]) <= limit; count(text[:hi]) > limit
	for probe := max(4*limit, 4); probe < hi; probe *= 2 {
		p := runeStart(text, probe)
		if p <= lo {
			break
		}
		if count(text[:p]) > limit {
			hi = p
			break
		}
		lo = p
	}
	for hi-lo > 1 {
		mid := runeStart(text, lo+(hi-lo)/2)
		if mid <= lo {
			mid = lo + runeLen(text, lo)
			if mid >= hi {
				break
			}
		}
		if count(text[:mid]) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return runeLen(text, 0)
	}
	for i := lo - 1; i > lo/2; i-- {
		if text[i] == ' ' || text[i] == '\n' || text[i] == '\t' {
			return i + 1
		}
	}
	return lo
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeLen is the byte length of the rune at i (1 for invalid UTF-8).
func runeLen(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return max(n, 1)
}
