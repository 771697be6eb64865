package web

import (
	"net/url"
	"regexp"
	"strings"
)

// filters are the search page's controls beside the query: each composes
// an operator of the query string (library/query parses it, as it parses
// what an assistant or `mcpvec search` sends), so the page has no filter
// logic of its own.
type filters struct {
	Type   string // a type name of Types, "" for any
	In     string // document title or file name (glob)
	Path   string // folder
	After  string // YYYY-MM-DD
	Before string
}

// filterTypes are the choices of the page's type control.
var filterTypes = []string{"pdf", "docx", "md", "txt", "html", "epub", "pptx", "xlsx", "odt"}

var dateField = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2})?)?$`)

// readFilters reads the controls from a request's query, dropping values
// the page did not offer.
func readFilters(q url.Values) filters {
	f := filters{In: strings.TrimSpace(q.Get("in")), Path: strings.TrimSpace(q.Get("path"))}
	for _, t := range filterTypes {
		if q.Get("type") == t {
			f.Type = t
		}
	}
	if d := q.Get("after"); dateField.MatchString(d) {
		f.After = d
	}
	if d := q.Get("before"); dateField.MatchString(d) {
		f.Before = d
	}
	return f
}

// compose appends the controls' operators to the query text.
func (f filters) compose(q string) string {
	parts := []string{strings.TrimSpace(q)}
	add := func(name, v string) {
		v = strings.ReplaceAll(v, `"`, "")
		if v == "" {
			return
		}
		if strings.ContainsAny(v, " \t") {
			v = `"` + v + `"`
		}
		parts = append(parts, name+":"+v)
	}
	add("type", f.Type)
	add("in", f.In)
	add("path", f.Path)
	add("after", f.After)
	add("before", f.Before)
	return strings.TrimSpace(strings.Join(parts, " "))
}

// values are the controls as URL parameters, for the pager's links.
func (f filters) values(v url.Values) url.Values {
	for name, val := range map[string]string{"type": f.Type, "in": f.In, "path": f.Path, "after": f.After, "before": f.Before} {
		if val != "" {
			v.Set(name, val)
		}
	}
	return v
}
