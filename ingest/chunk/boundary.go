package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// level ranks the gap before an atom as a place to cut: higher is better.
type level uint8

const (
	levelNone      level = iota // inside a word, or between a word and its punctuation
	levelWord                   // whitespace, or between two CJK characters
	levelLine                   // a single line break (often a wrapped line in PDFs)
	levelSentence               // after a sentence-ending mark
	levelParagraph              // a blank line, form feed or paragraph separator
	levelQuestion               // before a question line (FAQ) or a short bold line
	levelSection                // just before a heading
	levelEnd                    // the end of the text
)

// abbreviations are words that, followed by a period, rarely end a sentence.
var abbreviations = map[string]bool{
	"al": true, "approx": true, "ca": true, "cf": true, "dr": true, "eq": true, "eqs": true,
	"etc": true, "fig": true, "figs": true, "inc": true, "jr": true, "mr": true, "mrs": true,
	"ms": true, "no": true, "nos": true, "p": true, "pp": true, "prof": true, "ref": true,
	"refs": true, "sec": true, "sr": true, "st": true, "vol": true, "vs": true,
}

// gapLevel ranks the gap between atoms[i-1] and atoms[i] (i >= 1).
func gapLevel(text string, atoms []analysis.Atom, i int) level {
	prev, cur := atoms[i-1], atoms[i]
	space := text[prev.End:cur.Start]
	if space == "" {
		return joinedLevel(text, prev, cur)
	}
	lv := spaceLevel(text, atoms, i, space)
	if lv < levelLine || !strings.ContainsAny(space, lineBreaks) {
		return lv
	}
	return questionLevel(text, prev.End, cur.Start, lv)
}

// spaceLevel ranks a gap of white space by what it holds and what it
// follows.
func spaceLevel(text string, atoms []analysis.Atom, i int, space string) level {
	if strings.Count(space, "\n") >= 2 || strings.ContainsAny(space, "\f\u2029") ||
		strings.Contains(space, "\r\r") {
		return levelParagraph
	}
	if endsSentence(text, atoms, i) {
		return levelSentence
	}
	if strings.ContainsAny(space, "\n\r\u2028\u0085") {
		return levelLine
	}
	return levelWord
}

// lineBreaks are the characters that end a line.
const lineBreaks = "\n\r\f\u0085\u2028\u2029"

// maxQuestionBytes bounds the length of a line taken for a question.
const maxQuestionBytes = 250

// questionPrefix reports whether s starts as a line that asks or labels a
// question does: "Q:", "Q3.", "Question 2)", "FAQ" (in any letter case).
// Written out rather than a regexp: it runs at every line break of a
// document, and a regexp allocated per call there (2.3 GB for 32 MiB of
// text under the race detector, which empties sync.Pools).
func questionPrefix(s string) bool {
	if len(s) >= 3 && strings.EqualFold(s[:3], "faq") {
		return len(s) == 3 || !isWordByte(s[3])
	}
	if s == "" || (s[0] != 'q' && s[0] != 'Q') {
		return false
	}
	i := 1
	if len(s) >= 8 && strings.EqualFold(s[:8], "question") {
		i = 8
	}
	i = skipBlanks(s, i)
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	i = skipBlanks(s, i)
	return i < len(s) && (s[i] == ':' || s[i] == '.' || s[i] == ')')
}

// skipBlanks returns the index of the first byte of s from i on that is
// no space or tab.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// isWordByte reports an ASCII letter, digit or underscore (a regexp's \w).
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// questionLevel refines lv, the rank of a line or paragraph break between
// text[:end] and text[start:]: before a question line (one ending in "?"
// after a sentence or paragraph end, or one starting "Q:", "Question 3.")
// or a short bold line ("**...**") it is levelQuestion, so a question
// starts a passage with its answer; right after a question line it is no
// better than a space, so a question is not cut from its answer.
func questionLevel(text string, end, start int, lv level) level {
	next := text[start:min(len(text), start+maxQuestionBytes+1)]
	if i := strings.IndexAny(next, lineBreaks); i >= 0 {
		next = next[:i]
	} else if start+len(next) < len(text) {
		next = "" // longer than a question
	}
	next = strings.TrimSpace(next)
	asks := (lv >= levelSentence && (strings.HasSuffix(next, "?") || strings.HasSuffix(next, "？"))) ||
		questionPrefix(next) || boldLine(next)
	if asks {
		return levelQuestion
	}
	prev := text[max(0, end-maxQuestionBytes-1):end]
	if i := strings.LastIndexAny(prev, lineBreaks); i >= 0 {
		prev = prev[i+1:]
	} else if end-len(prev) > 0 {
		prev = "" // longer than a question
	}
	prev = strings.TrimSpace(prev)
	if strings.HasSuffix(prev, "?") || strings.HasSuffix(prev, "？") || questionPrefix(prev) {
		return levelWord
	}
	return lv
}

// boldLine reports whether line is a short Markdown bold line, a label
// or heading that is not marked as one.
func boldLine(line string) bool {
	return len(line) > 4 && len(line) <= 120 && strings.HasPrefix(line, "**") && strings.HasSuffix(line, "**") &&
		!strings.Contains(line[2:len(line)-2], "**")
}

// joinedLevel ranks the zero-width gap between two adjacent atoms.
func joinedLevel(text string, prev, cur analysis.Atom) level {
	p := text[prev.Start:prev.End]
	switch {
	case p == "。" || p == "！" || p == "？" || p == "｡":
		return levelSentence
	case prev.Class == analysis.ClassCJK && cur.Class == analysis.ClassCJK:
		return levelWord
	case prev.Class == analysis.ClassPunct && !isASCII(p) && cur.Class == analysis.ClassCJK:
		return levelWord // after a full-width comma, colon or closing bracket
	}
	return levelNone
}

// endsSentence reports whether atoms[i-1] (plus closing quotes or brackets)
// ends a sentence and atoms[i] can start one.
func endsSentence(text string, atoms []analysis.Atom, i int) bool {
	if first, _ := utf8.DecodeRuneInString(text[atoms[i].Start:]); unicode.IsLower(first) {
		return false
	}
	j := i - 1
	for j > 0 && isCloser(text[atoms[j].Start:atoms[j].End]) && atoms[j-1].End == atoms[j].Start {
		j--
	}
	switch text[atoms[j].Start:atoms[j].End] {
	case "!", "?", "…", "。", "！", "？":
		return true
	case ".":
	default:
		return false
	}
	if j == 0 || atoms[j-1].End != atoms[j].Start {
		return true // a lone period, e.g. " ." in Cranfield
	}
	w := atoms[j-1]
	word := text[w.Start:w.End]
	if w.Class != analysis.ClassWord {
		return w.Class == analysis.ClassDigit || w.Class == analysis.ClassPunct
	}
	return utf8.RuneCountInString(word) > 1 && !abbreviations[strings.ToLower(word)]
}

// isCloser reports whether s closes a quotation or bracket.
func isCloser(s string) bool {
	switch s {
	case `"`, "'", ")", "]", "”", "’", "»", "」", "』", "）":
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
