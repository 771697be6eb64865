package analysis

import (
	"strings"
	"unicode/utf8"
)

// CompoundParts returns how many times each term of text, read in lang as
// TokenizeAs reads it, comes from a word of a code-like compound span
// rather than from a plain word or from the whole of a span or segment. A
// span is code-like when it splits at a camelCase boundary or holds a
// joiner of identifiers, paths and addresses (RefUnwindSafe,
// std::panic::Any, Global.icodes.Local, sort_func, /etc/group); one joined
// by hyphens or apostrophes alone (floating-point, IL-6, l'utente,
// Alzheimer's) is prose, as often written apart, and gives none. Numbers
// are not counted either (iso_8859-1 gives iso alone): a version or a
// charset's number tells identifiers apart. index/lexical weighs these
// words less in a query and does not count them as words of their own, so
// that an identifier does not weigh as many words as it holds. It is safe
// for concurrent use; text without such a span gives nil.
func CompoundParts(text string, lang Language) map[string]int {
	var parts map[string]int
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isUnspaced(r):
			i = unspacedEnd(text, i)
		case isWordRune(r):
			end := spanEnd(text, i)
			parts = countParts(parts, text[i:end], lang)
			i = end
		default:
			i += size
		}
	}
	return parts
}

// countParts adds to parts the terms of span's words when span is a
// code-like compound (CompoundParts), splitting it as appendSplit does.
func countParts(parts map[string]int, span string, lang Language) map[string]int {
	if isNumber(span) || isPlainWord(span) {
		return parts
	}
	segs := splitSegments(strings.ReplaceAll(span, ",", ""))
	var words []string
	pieces, split := 0, 0
	for _, seg := range segs {
		pieces += len(strings.FieldsFunc(seg, isHyphen))
		ws := splitWords(seg)
		split += len(ws)
		for _, w := range ws {
			words = appendNorm(words, w, lang, nil)
		}
	}
	if split == pieces && !strings.ContainsFunc(span, isCodeJoiner) {
		return parts // no camelCase, and joined by hyphens or apostrophes alone (prose), or not at all
	}
	for _, t := range words {
		if isNumber(t) {
			continue // a version or a charset's number tells the identifier apart
		}
		if parts == nil {
			parts = map[string]int{}
		}
		parts[t]++
	}
	return parts
}
