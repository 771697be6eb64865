package web

import (
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/internal/bytesize"
)

var funcs = template.FuncMap{
	"list":  func(s ...string) []string { return s },
	"size":  bytesize.Format,
	"count": formatCount,
	"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
	"day":   func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"kind":  kindOf,
	"add":   func(a, b int) int { return a + b },
	"tail":  tailPath,
	"ms": func(d time.Duration) string {
		return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + " ms"
	},
	"score": func(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) },
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12] + "…"
		}
		return s
	},
}

// kinds names the media types ingest produces as people call them.
var kinds = map[string]string{
	"application/pdf":      "PDF",
	"text/plain":           "Text",
	"text/markdown":        "Markdown",
	"text/html":            "HTML",
	"application/rtf":      "RTF",
	"application/epub+zip": "EPUB",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "Word",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel",
	"application/vnd.oasis.opendocument.text":                                   "ODF text",
	"application/vnd.oasis.opendocument.presentation":                           "ODF slides",
	"application/vnd.oasis.opendocument.spreadsheet":                            "ODF sheet",
}

// kindOf is the short name of a media type ("Word"), or its subtype
// ("x-foo" of "application/x-foo") when it has none.
func kindOf(mediaType string) string {
	if k, ok := kinds[mediaType]; ok {
		return k
	}
	if _, sub, ok := strings.Cut(mediaType, "/"); ok && sub != "" {
		return sub
	}
	return mediaType
}

// tailPath is a file path cut to its folder and file name
// ("…/Team handbook/notes.docx"), which a narrow column can show; URLs and
// short paths are kept whole.
func tailPath(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	i := strings.LastIndexAny(p, `/\`)
	if i <= 0 {
		return p
	}
	j := strings.LastIndexAny(p[:i], `/\`)
	if j <= 0 {
		return p
	}
	return "…" + p[j:]
}

// plural is "1 document", "2 documents": n counted (with thousands
// separators) and one of the two words.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatCount(n) + " " + many
}

func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// baseFuncs are the template functions of one handler: base is
// Options.Base, which every link and form action starts with.
func (h *Handler) baseFuncs() template.FuncMap {
	return template.FuncMap{"base": func() string { return h.opts.Base }}
}
