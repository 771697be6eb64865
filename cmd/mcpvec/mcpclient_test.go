package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/server/mcptest"
)

// searchResult is one result of the MCP search tool; searchJSON its answer
// (and that of `mcpvec search --json`).
type searchResult struct{ ID, Title, URL, Text string }

type searchJSON struct {
	Results []searchResult `json:"results"`
}

// connect opens an MCP client of the streamable HTTP endpoint url with a
// session at protocol version ("": the newest both speak), closed on
// cleanup.
func connect(tb testing.TB, url, version string) *client.Client {
	tb.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		tb.Fatal(err)
	}
	initialize(tb, c, version)
	return c
}

// initialize starts c and opens its session at protocol version (within a
// minute), and returns the server's answer; c is closed on cleanup.
func initialize(tb testing.TB, c *client.Client, version string) *mcp.InitializeResult {
	tb.Helper()
	tb.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "mcpvec-test", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// callTool calls an MCP tool (within 30 seconds) and returns its text and
// whether it is a tool error; a failed call or an empty result fails tb.
func callTool(tb testing.TB, c *client.Client, name string, args map[string]any) (text string, isError bool) {
	tb.Helper()
	res := mcptest.CallTool(tb, c, name, args)
	if len(res.Content) == 0 {
		tb.Fatalf("%s %v over MCP: empty result %+v", name, args, res)
	}
	return res.Content[0].(mcp.TextContent).Text, res.IsError
}

// mcpSearchJSON calls the search tool and decodes its answer; a tool error
// or an answer that is not one JSON object fails tb.
func mcpSearchJSON(tb testing.TB, c *client.Client, query string) searchJSON {
	tb.Helper()
	text, isErr := callTool(tb, c, "search", map[string]any{"query": query})
	var sr searchJSON
	if err := json.Unmarshal([]byte(text), &sr); isErr || err != nil {
		tb.Fatalf("search %q over MCP: %s (%v)", query, text, err)
	}
	return sr
}

// mcpFetch calls the fetch tool and returns its text and whether it is a
// tool error.
func mcpFetch(t *testing.T, c *client.Client, id string) (string, bool) {
	t.Helper()
	return callTool(t, c, "fetch", map[string]any{"id": id})
}

// mcpSearch calls the search tool and returns the passages' texts.
func mcpSearch(tb testing.TB, c *client.Client, query string) []string {
	tb.Helper()
	var out []string
	for _, r := range mcpSearchJSON(tb, c, query).Results {
		out = append(out, r.Text)
	}
	return out
}

// mcpTopResult is the first result of an MCP search for query; no
// result fails t.
func mcpTopResult(t *testing.T, c *client.Client, query string) searchResult {
	t.Helper()
	sr := mcpSearchJSON(t, c, query)
	if len(sr.Results) == 0 {
		t.Fatalf("search %q: no results", query)
	}
	return sr.Results[0]
}

// waitSearch polls MCP search for query every 5 ms until its top result
// contains want, and reports whether it did within the given time.
func waitSearch(tb testing.TB, c *client.Client, query, want string, within time.Duration) bool {
	tb.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got := mcpSearch(tb, c, query); len(got) > 0 && strings.Contains(got[0], want) {
			return true
		}
	}
	return false
}

// getLink GETs a citation link as a browser would (no token) and returns
// the body and content type.
func getLink(t *testing.T, link string) (string, string) {
	t.Helper()
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", link, resp.Status, err)
	}
	return string(body), resp.Header.Get("Content-Type")
}
