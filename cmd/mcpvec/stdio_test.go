package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestServeStdioWithRealBinary runs `mcpvec serve --stdio` as a child
// process, as Claude Desktop or Codex do, and drives it with mcp-go's stdio
// client: anything the binary printed to stdout besides MCP would break the
// session.
func TestServeStdioWithRealBinary(t *testing.T) {
	_, db := tempLib(t)
	cats, _ := filepath.Abs("../../testdata/cats.pdf")
	mustRun(t, db, "ingest", "--url", "https://example.org/cats.pdf", cats)

	env := append(os.Environ(), "MCPVEC_TEST_MAIN=1", "MCPVEC_DB="+db)
	c, err := client.NewStdioMCPClient(os.Args[0], env, "serve", "--stdio")
	if err != nil {
		t.Fatal(err)
	}
	res := initialize(t, c, "2025-06-18")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res.ServerInfo.Name != "mcpvec" || !strings.Contains(res.Instructions, "1 document") {
		t.Fatalf("initialize = %+v", res)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools = %+v, %v", tools, err)
	}
	sr := mcpSearchJSON(t, c, "are cats attached to their homes")
	if len(sr.Results) == 0 {
		t.Fatalf("search found nothing")
	}
	if r := sr.Results[0]; !strings.HasPrefix(r.URL, "https://example.org/cats.pdf#page=") || !strings.Contains(r.Title, "p. ") {
		t.Fatalf("top result = %+v", r)
	}
	if text, isErr := callTool(t, c, "fetch", map[string]any{"id": sr.Results[0].ID}); isErr || !strings.Contains(text, `"page_start"`) {
		t.Fatalf("fetch: %s", text)
	}
	if text, isErr := callTool(t, c, "fetch", map[string]any{"id": "nope:1"}); !isErr {
		t.Fatalf("unknown id should be a tool error: %s", text)
	}
}
