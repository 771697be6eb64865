package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// protocolCases are the versions every transport must serve; "" lets the
// client negotiate the newest.
var protocolCases = []struct{ name, version, want string }{
	{"newest", "", mcp.LATEST_PROTOCOL_VERSION},
	{"2025-11-25", mcp.ProtocolVersion20251125, mcp.ProtocolVersion20251125},
	{"2025-06-18", mcp.ProtocolVersion20250618, mcp.ProtocolVersion20250618},
	{"2025-03-26", mcp.ProtocolVersion20250326, mcp.ProtocolVersion20250326},
}

func TestEndToEnd(t *testing.T) {
	lib := newFakeLib()
	s := MustNew(t, lib, Options{})
	base := MustServe(t, s)
	for _, kind := range []transportKind{streamable, sse, stdio} {
		for _, pc := range protocolCases {
			t.Run(string(kind)+"/"+pc.name, func(t *testing.T) {
				endpoint := map[transportKind]string{streamable: base + "/mcp", sse: base + "/sse"}[kind]
				c, init := MustClient(t, s, kind, endpoint, nil, pc.version)
				if init.ProtocolVersion != pc.want {
					t.Errorf("protocol = %q, want %q", init.ProtocolVersion, pc.want)
				}
				t.Logf("negotiated %s", init.ProtocolVersion)
				linkBase := base
				if kind == stdio {
					linkBase = ""
				}
				checkFlow(t, c, init, linkBase)
			})
		}
	}
}

// checkFlow runs initialize checks, tools/list, search, fetch and the error
// cases. linkBase is the expected base of /docs links ("" over stdio).
func checkFlow(t *testing.T, c *client.Client, init *mcp.InitializeResult, linkBase string) {
	t.Helper()
	if got, want := init.ServerInfo.Name, "mcpvec"; got != want {
		t.Errorf("server name = %q, want %q", got, want)
	}
	if !strings.Contains(init.Instructions, "2 documents, 3 passages") || !strings.Contains(init.Instructions, "manual.pdf") {
		t.Errorf("instructions do not describe the library: %q", init.Instructions)
	}
	checkTools(t, c)

	var sr library.SearchResponse
	decodeResult(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "impeller bolts"}), &sr)
	if len(sr.Results) != 2 {
		t.Fatalf("results = %+v, want 2", sr.Results)
	}
	top := sr.Results[0]
	if top.ID != "d1:1" || top.Title != "manual.pdf — p. 2" || !strings.Contains(top.Text, "six bolts") {
		t.Errorf("top result = %+v", top)
	}
	wantURL := ""
	if linkBase != "" {
		wantURL = linkBase + "/docs/d1/" + signatureFor(testLinkKey, "d1") + "#page=2"
	}
	if top.URL != wantURL {
		t.Errorf("top url = %q, want %q", top.URL, wantURL)
	}
	if got, want := sr.Results[1].URL, "https://example.com/notes.md"; got != want {
		t.Errorf("source url = %q, want %q", got, want)
	}

	var fr library.FetchResponse
	decodeResult(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "d1:1"}), &fr)
	if fr.ID != "d1:1" || !strings.Contains(fr.Text, "six bolts") || fr.URL != wantURL {
		t.Errorf("fetch = %+v", fr)
	}
	if fr.Metadata["document_id"] != "d1" || fr.Metadata["truncated"] != nil {
		t.Errorf("fetch metadata = %v", fr.Metadata)
	}
	if linkBase != "" {
		checkDocLink(t, fr.URL, "application/pdf", "%PDF-1.4")
	}

	// Nothing found is an empty array, never null.
	res := mcptest.CallTool(t, c, "search", map[string]any{"query": "zeppelin"})
	if text := res.Content[0].(mcp.TextContent).Text; text != `{"results":[]}` {
		t.Errorf("empty search = %s", text)
	}
	checkToolErrors(t, c)
}

func checkTools(t *testing.T, c *client.Client) {
	t.Helper()
	list, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations = %+v", tool.Name, a)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		schema := mustJSON(t, tool.OutputSchema)
		if tool.Name == "search" && !strings.Contains(schema, `"text":{"description"`) {
			t.Errorf("search output schema lacks text: %s", schema)
		}
		if tool.Name == "fetch" && !strings.Contains(schema, `"metadata"`) {
			t.Errorf("fetch output schema lacks metadata: %s", schema)
		}
	}
	if got := strings.Join(names, ","); got != "fetch,search" && got != "search,fetch" {
		t.Errorf("tools = %s, want exactly search and fetch", got)
	}
}

func checkToolErrors(t *testing.T, c *client.Client) {
	t.Helper()
	if msg := errorText(t, mcptest.CallTool(t, c, "search", map[string]any{"query": "  "})); !strings.Contains(msg, "empty") {
		t.Errorf("empty query message = %q", msg)
	}
	long := strings.Repeat("x", DefaultMaxQueryLen+1)
	if msg := errorText(t, mcptest.CallTool(t, c, "search", map[string]any{"query": long})); !strings.Contains(msg, "too long") {
		t.Errorf("long query message = %q", msg)
	}
	if msg := errorText(t, mcptest.CallTool(t, c, "fetch", map[string]any{"id": "nope"})); !strings.Contains(msg, `Unknown id "nope"`) {
		t.Errorf("unknown id message = %q", msg)
	}
}

// checkDocLink opens a document link like a browser would (no token) and
// checks the content type and the start of the body.
func checkDocLink(t *testing.T, link, wantType, wantPrefix string) {
	t.Helper()
	link, _, _ = strings.Cut(link, "#")
	resp, err := http.Get(link)
	if err != nil {
		t.Fatalf("GET %s: %v", link, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s", link, resp.Status, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, wantType) {
		t.Errorf("content type = %q, want %q", ct, wantType)
	}
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "inline") {
		t.Errorf("content disposition = %q, want inline", cd)
	}
	if !strings.HasPrefix(string(body), wantPrefix) {
		t.Errorf("body = %q, want prefix %q", body, wantPrefix)
	}
}
