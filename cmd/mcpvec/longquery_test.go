package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/topictext"
)

// TestLongQuery20000Characters: a pasted 20,000-character text (on the
// topic of one document, copying none) was refused as over 1,000
// characters; it is answered with that document first by the CLI in each
// mode, by MCP and by the web page (whose URL then holds 120 KB), and a
// query over 32,000 characters is refused saying both lengths.
func TestLongQuery20000Characters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, docs := filepath.Join(dir, "lib.db"), filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	for topic := range 6 {
		os.WriteFile(filepath.Join(docs, fmt.Sprintf("topic%d.txt", topic)), []byte(topictext.Text(topic, 1, 12000)), 0o644)
	}
	os.WriteFile(filepath.Join(docs, "greek5.txt"), []byte(topictext.Greek(topictext.Text(5, 1, 12000))), 0o644)
	mustRun(t, db, "ingest", docs)
	query := topictext.Text(4, 99, 20000)
	for _, mode := range []string{"lexical", "hybrid", "vector"} {
		var sr searchJSON
		out := mustRun(t, db, "search", "--json", "--mode", mode, "--", query)
		if err := json.Unmarshal([]byte(out), &sr); err != nil || len(sr.Results) == 0 {
			t.Fatalf("search --mode %s: %v\n%s", mode, err, out)
		}
		if mode != "vector" && !strings.HasPrefix(sr.Results[0].Title, "topic4.txt") {
			t.Errorf("search --mode %s: top result %q, want topic4.txt", mode, sr.Results[0].Title)
		}
	}
	over := topictext.Text(4, 99, 32001)
	if r := mcpvec(t, db, "search", "--", over); r.code == 0 || !strings.Contains(r.stderr, "query too long: 32001 characters, the limit is 32000") {
		t.Errorf("search of 32,001 characters: exit %d, stderr %q", r.code, r.stderr)
	}

	s := startServe(t, db, nil)
	if top := mcpTopResult(t, s.c, query); !strings.HasPrefix(top.Title, "topic4.txt") {
		t.Errorf("MCP search: top result %q, want topic4.txt", top.Title)
	}
	if text, isErr := callTool(t, s.c, "search", map[string]any{"query": over}); !isErr || !strings.Contains(text, "too long (32001 characters, at most 32000)") {
		t.Errorf("MCP search of 32,001 characters: %q (error %v)", text, isErr)
	}
	web := &webClient{t: t, base: strings.TrimSuffix(s.url, "/mcp")}
	q := topictext.Greek(topictext.Text(5, 99, 20000))
	code, _, page := web.get("/ui/search?" + url.Values{"q": {q}, "mode": {"lexical"}}.Encode())
	if _, first, ok := strings.Cut(page, `class="title"`); code != http.StatusOK || !ok || !strings.HasPrefix(first[strings.Index(first, ">")+1:], "greek5.txt") {
		t.Errorf("web search of 20,000 Greek characters: %d, want 200 with greek5.txt first:\n%.2000s", code, page)
	}
}
