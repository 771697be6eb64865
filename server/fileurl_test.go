package server

import (
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// TestStdioLinksTheFileWithShowPaths is issue 34 item 8 for the MCP tools:
// over HTTP a document without a source URL keeps its signed link; over
// stdio, where no server links exist, it is linked by its file:// URL
// (#page=N for a PDF) when --show-paths lets paths out, and by nothing
// otherwise, as fetch metadata names the file only.
func TestStdioLinksTheFileWithShowPaths(t *testing.T) {
	const path = "/srv/lib/pump manual #2.pdf"
	lib := realLib{MustRealLibrary(t, hashEmbedder{Dims: 64}, []testDoc{{id: "manual", title: "manual.pdf", path: path,
		mediaType: "application/pdf", passages: []string{"Prime the pump with water.", "Remove the six impeller bolts."}}})}
	const fileURL = "file:///srv/lib/pump%20manual%20%232.pdf#page=2"
	for _, tc := range []struct {
		kind      transportKind
		showPaths bool
		want      func(base string) string
	}{
		{stdio, true, func(string) string { return fileURL }},
		{stdio, false, func(string) string { return "" }},
		{streamable, true, func(base string) string {
			return base + "/docs/manual/" + signatureFor(testLinkKey, "manual") + "#page=2"
		}},
	} {
		s := MustNew(t, lib, Options{ShowPaths: tc.showPaths})
		base := MustServe(t, s)
		c, _ := MustClient(t, s, tc.kind, base+"/mcp", nil, "")
		var sr library.SearchResponse
		decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "impeller bolts"}), &sr)
		var fr library.FetchResponse
		decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "manual:1"}), &fr)
		want := tc.want(base)
		if len(sr.Results) == 0 || sr.Results[0].URL != want || fr.URL != want {
			t.Errorf("%s, show paths %v: search %+v, fetch url %q; want url %q", tc.kind, tc.showPaths, sr.Results, fr.URL, want)
		}
	}
}
