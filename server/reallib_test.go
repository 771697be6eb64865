package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/ingest/embed/embedtest"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/server/mcptest"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// realLib is *library.Library, which is the server's Library as it is.
type realLib struct{ *library.Library }

// hashEmbedder is the shared deterministic test embedder: each word adds 1
// to a hashed dimension, then the vector is normalised.
type hashEmbedder = embedtest.Words

// testDoc is a document written straight into the store, one passage per
// page (or per paragraph for unpaged documents).
type testDoc struct {
	id, title, path, url, mediaType string
	original                        []byte
	passages                        []string
	units                           bool // one unit (page, slide, sheet) per passage; implied for PDFs
	modTime                         time.Time
}

// MustRealLibrary writes docs into a new store in a temp dir and opens the
// real library on it. Cleanup checks every passage is indexed, then closes.
func MustRealLibrary(tb testing.TB, emb hashEmbedder, docs []testDoc) *library.Library {
	tb.Helper()
	db := storetest.MustOpen(tb, nil)
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "hash", Dimensions: emb.Dims}); err != nil {
		tb.Fatal(err)
	}
	total := 0
	for _, d := range docs {
		putTestDoc(tb, db, emb, d)
		total += len(d.passages)
	}
	lib, err := embedded.Open(context.Background(), db, emb, library.Options{Logger: quietLogger(tb)})
	if err != nil {
		tb.Fatalf("open library: %v", err)
	}
	tb.Cleanup(func() {
		st := lib.IndexStats(context.Background())
		if st.LexicalPassages != total || st.VectorPassages != total {
			tb.Errorf("index stats %+v, want %d passages in both indexes", st, total)
		}
	})
	return lib
}

func putTestDoc(tb testing.TB, db *store.DB, emb hashEmbedder, d testDoc) {
	tb.Helper()
	doc := &store.Document{ID: d.id, Title: d.title, SourcePath: d.path, SourceURL: d.url, MediaType: d.mediaType, ModTime: d.modTime}
	paged := d.units || d.mediaType == "application/pdf"
	chunks := make([]store.Chunk, len(d.passages))
	var text strings.Builder
	for i, p := range d.passages {
		if i > 0 {
			text.WriteString("\n\n")
		}
		start := text.Len()
		text.WriteString(p)
		chunks[i] = store.Chunk{Text: p, Start: start, End: text.Len()}
		if paged {
			doc.PageStarts = append(doc.PageStarts, start)
			chunks[i].PageStart, chunks[i].PageEnd = i+1, i+1
		}
	}
	if paged {
		doc.Pages = len(d.passages)
	}
	doc.Text = text.String()
	vecs, _ := emb.Embed(context.Background(), d.passages)
	if _, err := db.PutDocument(doc, chunks, vecs, d.original); err != nil {
		tb.Fatalf("put %s: %v", d.id, err)
	}
}

var realDocs = []testDoc{
	{id: "manual", title: "manual.pdf", path: "/lib/manual.pdf", mediaType: "application/pdf",
		original: []byte("%PDF-1.4\n% pump manual\n"),
		passages: []string{
			"The pump must be primed with water before the first start.",
			"To replace the impeller, remove the six bolts of the pump housing.",
		}},
	{id: "notes", title: "notes.md", path: "/lib/notes.md", url: "https://example.com/notes.md", mediaType: "text/markdown",
		original: []byte("# Notes\n\nThe impeller is made of bronze.\n"),
		passages: []string{"The impeller is made of bronze."}},
}

func TestRealLibraryEndToEnd(t *testing.T) {
	lib := realLib{MustRealLibrary(t, hashEmbedder{Dims: 64}, realDocs)}
	s := MustNew(t, lib, Options{})
	base := MustServe(t, s)
	for _, kind := range []transportKind{streamable, sse, stdio} {
		for _, version := range []string{mcp.ProtocolVersion20250618, ""} {
			t.Run(string(kind)+"/"+version, func(t *testing.T) {
				endpoint := map[transportKind]string{streamable: base + "/mcp", sse: base + "/sse/"}[kind]
				c, init := MustClient(t, s, kind, endpoint, nil, version)
				if !strings.Contains(init.Instructions, "2 documents, 3 passages") {
					t.Errorf("instructions = %q", init.Instructions)
				}
				checkTools(t, c)
				var sr library.SearchResponse
				decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "replace the impeller bolts"}), &sr)
				if len(sr.Results) == 0 || sr.Results[0].ID != "manual:1" {
					t.Fatalf("results = %+v, want manual:1 first", sr.Results)
				}
				wantURL := ""
				if kind != stdio {
					wantURL = base + "/docs/manual/" + signatureFor(testLinkKey, "manual") + "#page=2"
				}
				if sr.Results[0].URL != wantURL {
					t.Errorf("url = %q, want %q", sr.Results[0].URL, wantURL)
				}
				for _, r := range sr.Results[1:] {
					if r.ID == "notes:0" && r.URL != "https://example.com/notes.md" {
						t.Errorf("notes url = %q", r.URL)
					}
				}
				var fr library.FetchResponse
				decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "manual:1"}), &fr)
				if !strings.Contains(fr.Text, "six bolts") || fr.URL != wantURL || fr.Metadata["page_start"] != float64(2) {
					t.Errorf("fetch = %+v", fr)
				}
				if kind != stdio {
					checkDocLink(t, fr.URL, "application/pdf", "%PDF-1.4")
					var nr library.FetchResponse
					decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "notes"}), &nr)
					if nr.URL != "https://example.com/notes.md" {
						t.Errorf("notes fetch url = %q", nr.URL)
					}
					checkDocLink(t, base+"/docs/notes/"+signatureFor(testLinkKey, "notes"), "text/markdown; charset=utf-8", "# Notes")
				}
				checkToolErrors(t, c)
			})
		}
	}
}
