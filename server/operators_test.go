package server

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// operatorDocs are four documents of different folders, types and dates
// that all speak of the pump.
var operatorDocs = func() []testDoc {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	return []testDoc{
		{id: "manual", title: "Pump Manual", path: "/lib/work/manual.pdf", mediaType: "application/pdf", modTime: day("2023-06-01"),
			passages: []string{"Prime the pump with water before the first start.", "Replace the pump impeller yearly."}},
		{id: "notes", title: "notes.md", path: "/lib/work/notes.md", mediaType: "text/markdown", modTime: day("2024-03-10"),
			passages: []string{"The pump impeller is made of bronze."}},
		{id: "log", title: "Garden log", path: "/lib/home/log.txt", mediaType: "text/plain", modTime: day("2024-05-01"),
			passages: []string{"The garden pump ran dry in May."}},
		{id: "plan", title: "Garden Plan", path: "/lib/home/plan.docx", mediaType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", modTime: day("2022-01-01"),
			passages: []string{"A new pump for the pond, and a pump house."}},
	}
}()

// TestSearchOperatorsOverMCP: each operator, typed into the one query
// string a ChatGPT, Claude or Codex client sends, narrows the search tool's
// results as it says; an operator that matches nothing comes back as a
// note beside an empty list.
func TestSearchOperatorsOverMCP(t *testing.T) {
	lib := realLib{MustRealLibrary(t, hashEmbedder{Dims: 64}, operatorDocs)}
	s := MustNew(t, lib, Options{})
	base := MustServe(t, s)
	c, _ := MustClient(t, s, streamable, base+"/mcp", nil, "")
	for _, tc := range []struct {
		query string
		docs  []string
		note  string
	}{
		{"pump", []string{"log", "manual", "notes", "plan"}, ""},
		{"pump in:garden*", []string{"log", "plan"}, ""},
		{`pump in:"pump manual"`, []string{"manual"}, ""},
		{"pump -in:garden*", []string{"manual", "notes"}, ""},
		{"pump path:work/", []string{"manual", "notes"}, ""},
		{"pump -path:work/", []string{"log", "plan"}, ""},
		{"pump type:pdf|md", []string{"manual", "notes"}, ""},
		{"pump -type:pdf", []string{"log", "notes", "plan"}, ""},
		{"pump after:2024-03", []string{"log", "notes"}, ""},
		{"pump before:2024", []string{"manual", "plan"}, ""},
		{`"pump impeller"`, []string{"manual", "notes"}, ""},
		{"pump -impeller -water", []string{"log", "plan"}, ""},
		{"type:docx", []string{"plan"}, ""},
		{"pump in:nothing", nil, "in:nothing matches no document in the library"},
		{"pump type:xlsx", nil, "type:xlsx matches no document in the library"},
	} {
		var sr library.SearchResponse
		decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": tc.query}), &sr)
		var docs []string
		for _, r := range sr.Results {
			if id, _, _ := strings.Cut(r.ID, ":"); !slices.Contains(docs, id) {
				docs = append(docs, id)
			}
		}
		slices.Sort(docs)
		if !slices.Equal(docs, tc.docs) {
			t.Errorf("%q: documents %v, want %v", tc.query, docs, tc.docs)
		}
		if got := strings.Join(sr.Notes, "; "); got != tc.note {
			t.Errorf("%q: notes %q, want %q", tc.query, got, tc.note)
		}
	}
}
