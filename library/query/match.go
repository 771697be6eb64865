package query

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/store"
)

// Date is the date after: and before: compare: the document's own
// creation date where its format records one (store.Document.Created),
// else the file's modification time when it was recorded, else when the
// document was ingested. It is safe for concurrent use.
func Date(d *store.Document) time.Time {
	if !d.Created.IsZero() {
		return d.Created
	}
	if !d.ModTime.IsZero() {
		return d.ModTime
	}
	return d.IngestedAt
}

// MatchDocument reports whether d passes q's document conditions: every
// positive kind of operator given (in:, path:, type:) matched by one of its
// values, no negated one matched, and its Date at or after After and
// before Before. It is safe for concurrent use.
func (q *Query) MatchDocument(d *store.Document) bool {
	if !q.After.IsZero() && Date(d).Before(q.After) || !q.Before.IsZero() && !Date(d).Before(q.Before) {
		return false
	}
	checks := []struct {
		pos, neg []string
		match    func(*store.Document, string) bool
	}{{q.In, q.NotIn, matchName}, {q.Path, q.NotPath, matchPath}, {q.Type, q.NotType, matchType}}
	for _, c := range checks {
		if len(c.pos) > 0 && !slices.ContainsFunc(c.pos, func(p string) bool { return c.match(d, p) }) {
			return false
		}
		if slices.ContainsFunc(c.neg, func(p string) bool { return c.match(d, p) }) {
			return false
		}
	}
	return true
}

// Kinds lists the document operators q uses, one per kind, each with a
// function telling whether one document passes that kind alone; for notes
// on the operators that match nothing.
func (q *Query) Kinds() []Kind {
	var out []Kind
	add := func(name string, vals []string, neg bool, m func(*store.Document, string) bool) {
		for _, v := range vals {
			out = append(out, Kind{Name: name + quoted(v), match: func(d *store.Document) bool { return m(d, v) != neg }})
		}
	}
	add("in:", q.In, false, matchName)
	add("-in:", q.NotIn, true, matchName)
	add("path:", q.Path, false, matchPath)
	add("-path:", q.NotPath, true, matchPath)
	add("type:", q.Type, false, matchType)
	add("-type:", q.NotType, true, matchType)
	if !q.After.IsZero() {
		out = append(out, Kind{Name: "after:" + q.After.Format(time.DateOnly), match: func(d *store.Document) bool { return !Date(d).Before(q.After) }})
	}
	if !q.Before.IsZero() {
		out = append(out, Kind{Name: "before:" + q.Before.Format(time.DateOnly), match: func(d *store.Document) bool { return Date(d).Before(q.Before) }})
	}
	return out
}

// quoted is v as an operator's value is written: in quotes when it holds
// a space.
func quoted(v string) string {
	if strings.ContainsAny(v, " \t") {
		return `"` + v + `"`
	}
	return v
}

// Kind is one document operator of a query.
type Kind struct {
	Name  string // as a person would write it, e.g. "type:pdf"
	match func(*store.Document) bool
}

// Match reports whether d passes this operator alone.
func (k Kind) Match(d *store.Document) bool { return k.match(d) }

// hasGlob reports whether p uses path.Match's special characters.
func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// matchName matches the document's title or its file's base name: a glob
// against the whole name, else a substring of it (case-insensitive).
func matchName(d *store.Document, p string) bool {
	base := d.SourcePath
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	for _, name := range []string{d.Title, base} {
		name = strings.ToLower(name)
		if name == "" {
			continue
		}
		if hasGlob(p) {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		} else if strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// matchPath matches the document's source path: a folder ("docs/",
// "/home/me/docs") at the start of the path or of any of its folders; a
// glob against the whole path or any leading part of it.
func matchPath(d *store.Document, p string) bool {
	src := strings.ToLower(strings.ReplaceAll(d.SourcePath, `\`, "/"))
	if !hasGlob(p) {
		return strings.HasPrefix(src, p) || strings.Contains(src, "/"+strings.TrimPrefix(p, "/"))
	}
	for i := len(src); i > 0; i = strings.LastIndexByte(src[:i], '/') {
		for _, part := range []string{src[:i], strings.TrimPrefix(src[:i], "/")} {
			if ok, _ := path.Match(strings.TrimSuffix(p, "/"), part); ok {
				return true
			}
		}
	}
	return false
}

// typeAliases maps a type name to the media types it stands for, beyond
// the file extension of the same name.
var typeAliases = map[string][]string{
	"pdf":      {"application/pdf"},
	"docx":     {"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	"word":     {"application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	"pptx":     {"application/vnd.openxmlformats-officedocument.presentationml.presentation"},
	"xlsx":     {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	"odt":      {"application/vnd.oasis.opendocument.text"},
	"odp":      {"application/vnd.oasis.opendocument.presentation"},
	"ods":      {"application/vnd.oasis.opendocument.spreadsheet"},
	"epub":     {"application/epub+zip"},
	"rtf":      {"application/rtf"},
	"md":       {"text/markdown"},
	"markdown": {"text/markdown"},
	"txt":      {"text/plain"},
	"text":     {"text/plain"},
	"html":     {"text/html"},
	"htm":      {"text/html"},
	"png":      {"image/png"},
	"jpg":      {"image/jpeg"},
	"jpeg":     {"image/jpeg"},
	"tif":      {"image/tiff"},
	"tiff":     {"image/tiff"},
	"image":    {"image/png", "image/jpeg", "image/tiff"},
}

// matchType matches the document's media type (a name above, or the media
// type itself) or its file's extension.
func matchType(d *store.Document, t string) bool {
	mt := strings.ToLower(d.MediaType)
	if mt == t || slices.Contains(typeAliases[t], mt) {
		return true
	}
	src := strings.ToLower(d.SourcePath)
	return strings.HasSuffix(src, "."+t)
}

// Passage tests a passage's text against q's phrases and negations,
// matched on analysis.Tokenize's terms: a phrase's terms must follow one
// another in the passage's terms. Build it once per search; it is safe for
// concurrent use.
type Passage struct{ must, not [][]string }

// Passage returns q's passage test, or nil when q has none.
func (q *Query) Passage() *Passage {
	if !q.HasPassageFilter() {
		return nil
	}
	p := &Passage{}
	for _, s := range q.Phrases {
		if ts := analysis.Tokenize(s); len(ts) > 0 {
			p.must = append(p.must, ts)
		}
	}
	for _, s := range q.Not {
		if ts := analysis.Tokenize(s); len(ts) > 0 {
			p.not = append(p.not, ts)
		}
	}
	return p
}

// Match reports whether text holds every phrase and none of the negations.
func (p *Passage) Match(text string) bool {
	if p == nil {
		return true
	}
	ts := analysis.Tokenize(text)
	for _, m := range p.must {
		if !contains(ts, m) {
			return false
		}
	}
	for _, n := range p.not {
		if contains(ts, n) {
			return false
		}
	}
	return true
}

// contains reports whether seq occurs in ts as consecutive terms.
func contains(ts, seq []string) bool {
	for i := 0; i+len(seq) <= len(ts); i++ {
		if slices.Equal(ts[i:i+len(seq)], seq) {
			return true
		}
	}
	return false
}
