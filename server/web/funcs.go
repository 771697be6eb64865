package web

import (
	"html/template"
	"strconv"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

var funcs = template.FuncMap{
	"list":  func(s ...string) []string { return s },
	"size":  store.FormatSize,
	"count": formatCount,
	"when":  func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") },
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

func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
