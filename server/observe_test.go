package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestObserveCounts checks the calls Options.Observe hears over each
// transport: the results a search returned, 1 for a fetch found, and a
// tool error as failed.
func TestObserveCounts(t *testing.T) {
	for _, kind := range []transportKind{streamable, sse, stdio} {
		t.Run(string(kind), func(t *testing.T) {
			var mu sync.Mutex
			var calls []Call
			s := MustNew(t, newFakeLib(), Options{Observe: func(c Call) { mu.Lock(); calls = append(calls, c); mu.Unlock() }})
			endpoint := ""
			switch kind {
			case streamable:
				endpoint = MustServe(t, s) + "/mcp"
			case sse:
				endpoint = MustServe(t, s) + "/sse"
			}
			c, _ := MustClient(t, s, kind, endpoint, nil, "")
			for _, call := range []struct{ tool, arg, value string }{
				{"search", "query", "impeller"}, {"search", "query", "zzz"}, {"fetch", "id", "d1:1"}, {"search", "query", " "},
			} {
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = call.tool, map[string]any{call.arg: call.value}
				if _, err := c.CallTool(context.Background(), req); err != nil {
					t.Fatal(err)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			want := []Call{{Tool: "search", Results: 2}, {Tool: "search"}, {Tool: "fetch", Results: 1}, {Tool: "search", Failed: true}}
			if len(calls) != len(want) {
				t.Fatalf("observed %d calls, want %d: %+v", len(calls), len(want), calls)
			}
			for i, w := range want {
				if g := calls[i]; g.Tool != w.Tool || g.Results != w.Results || g.Failed != w.Failed {
					t.Errorf("call %d: observed %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestObserveClipsLongQuery: a call keeps the first 300 characters of a
// 20,000-character query, so the activity page's 200 calls stay small.
func TestObserveClipsLongQuery(t *testing.T) {
	var mu sync.Mutex
	var calls []Call
	s := MustNew(t, newFakeLib(), Options{Observe: func(c Call) { mu.Lock(); calls = append(calls, c); mu.Unlock() }})
	c, _ := MustClient(t, s, streamable, MustServe(t, s)+"/mcp", nil, "")
	query := strings.Repeat("impeller é ", 2000)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": query}
	if _, err := c.CallTool(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("observed %d calls", len(calls))
	}
	if got, want := calls[0].Query, string([]rune(query)[:300])+"…"; got != want {
		t.Errorf("observed query of %d characters, want the first 300 and an ellipsis", utf8.RuneCountInString(got))
	}
}
