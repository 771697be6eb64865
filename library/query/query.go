// Package query parses the operators a search string may carry (in:, path:,
// type:, after:, before:, "exact phrase", -word and the negated forms) and
// tells which documents and passages they allow. It is the one parser every
// entry point uses: the MCP search tool, `mcpvec search`, the web page and
// both backends (library.Search parses, the backends receive what it
// allows). It imports only the store's types and the analysis rules.
package query

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Query is a parsed search string. Its zero value is a plain query with
// nothing to match.
type Query struct {
	// Text is what the retrievers rank by: the plain words and the words
	// of the positive phrases, in their order, operators taken out.
	Text string
	// Docs holds the document conditions; Phrases and Not the passage ones.
	In, NotIn     []string // lower-cased title / file-name patterns
	Path, NotPath []string // lower-cased path prefixes or globs
	Type, NotType []string // lower-cased type names or extensions
	After, Before time.Time
	// Phrases must each occur in a passage, Not (words or phrases) must not.
	Phrases, Not []string
	// Operators are the operator terms as written, for notes ("in:foo").
	Operators []string
}

// HasDocFilter reports whether q keeps only some documents.
func (q *Query) HasDocFilter() bool {
	return len(q.In)+len(q.NotIn)+len(q.Path)+len(q.NotPath)+len(q.Type)+len(q.NotType) > 0 ||
		!q.After.IsZero() || !q.Before.IsZero()
}

// HasPassageFilter reports whether q tests passages' text.
func (q *Query) HasPassageFilter() bool { return len(q.Phrases)+len(q.Not) > 0 }

// Filtered reports whether q carries any operator.
func (q *Query) Filtered() bool { return q.HasDocFilter() || q.HasPassageFilter() }

// Parse splits s into operators and plain text. A term is split at white
// space outside double quotes; "…" is a phrase, a leading '-' negates a
// word, a phrase or an operator (two, as in --leak-check, do not). An unknown name:value term, an operator
// with an empty or unreadable value, and a lone '-' stay plain text, so a
// URL such as http://x or a time 10:30 is searched as written. An
// unterminated quote runs to the end. Parse never fails and is safe for
// concurrent use.
func Parse(s string) Query {
	var q Query
	var plain []string
	for _, t := range terms(s) {
		if !q.operator(t) {
			plain = append(plain, t.raw)
		} else if t.phrase && !t.neg && t.name == "" {
			plain = append(plain, t.value)
		}
	}
	q.Text = strings.Join(plain, " ")
	return q
}

// term is one white-space-separated piece of a query string.
type term struct {
	raw    string // as written
	neg    bool   // a leading '-'
	name   string // the operator name before ':', lower-cased; "" for none
	value  string // after the name (unquoted), or the word or phrase
	phrase bool   // value was quoted
}

// operator records t in q when t is an operator, a phrase or a negation,
// and reports whether it did.
func (q *Query) operator(t term) bool {
	v := strings.TrimSpace(t.value)
	if v == "" {
		return false
	}
	switch t.name {
	case "":
		switch {
		case t.neg:
			q.Not = append(q.Not, v)
		case t.phrase:
			q.Phrases = append(q.Phrases, v)
			return true // its words stay in Text (Parse adds them)
		default:
			return false
		}
	case "in":
		addTo(&q.In, &q.NotIn, t.neg, strings.ToLower(v))
	case "path":
		addTo(&q.Path, &q.NotPath, t.neg, strings.ToLower(strings.ReplaceAll(v, `\`, "/")))
	case "type":
		types := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == '|' || r == ',' })
		if len(types) == 0 {
			return false
		}
		for _, ty := range types {
			addTo(&q.Type, &q.NotType, t.neg, strings.TrimPrefix(ty, "."))
		}
	case "after", "before":
		from, ok := parseDate(v)
		if !ok || t.neg {
			return false
		}
		if t.name == "after" {
			q.After = from
		} else {
			q.Before = from
		}
	default:
		return false
	}
	q.Operators = append(q.Operators, t.raw)
	return true
}

func addTo(pos, neg *[]string, negated bool, v string) {
	if negated {
		*neg = append(*neg, v)
	} else {
		*pos = append(*pos, v)
	}
}

// parseDate reads YYYY, YYYY-MM or YYYY-MM-DD as the start of that period,
// in UTC.
func parseDate(v string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02", "2006-01", "2006"} {
		if len(v) == len(layout) {
			if d, err := time.Parse(layout, v); err == nil {
				return d, true
			}
		}
	}
	return time.Time{}, false
}

// operators are the names Parse knows.
var operators = map[string]bool{"in": true, "path": true, "type": true, "after": true, "before": true}

// terms splits s at white space outside double quotes.
func terms(s string) []term {
	var out []term
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		t, n := readTerm(s[i:])
		out = append(out, t)
		i += n
	}
	return out
}

// readTerm reads one term from the start of s (not white space) and
// returns it with the bytes it took.
func readTerm(s string) (term, int) {
	var t term
	i := 0
	if len(s) > 1 && s[0] == '-' && s[1] != '-' { // --flag is plain text
		t.neg, i = true, 1
	}
	if j := strings.IndexByte(s[i:], ':'); j > 0 && operators[strings.ToLower(s[i:i+j])] &&
		!strings.ContainsFunc(s[i:i+j], unicode.IsSpace) && !strings.Contains(s[i:i+j], `"`) {
		t.name, i = strings.ToLower(s[i:i+j]), i+j+1
	}
	if i < len(s) && s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			end = len(s) - i - 1
		}
		t.value, t.phrase = s[i+1:i+1+end], true
		n := min(len(s), i+end+2)
		t.raw = s[:n]
		return t, n
	}
	end := strings.IndexFunc(s[i:], unicode.IsSpace)
	if end < 0 {
		end = len(s) - i
	}
	t.value, t.raw = s[i:i+end], s[:i+end]
	if t.neg && t.name == "" && t.value == "" {
		t.neg = false
	}
	return t, i + end
}
