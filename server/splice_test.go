package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
)

// spliceResponse is a search response of n results whose text holds what
// JSON escapes: quotes, backslashes, HTML, control characters, U+2028 and
// invalid UTF-8.
func spliceResponse(n int) library.SearchResponse {
	out := library.SearchResponse{Results: []library.SearchResult{}}
	for i := range n {
		out.Results = append(out.Results, library.SearchResult{
			ID: fmt.Sprintf("d%05d:%d", i*997, i), Title: fmt.Sprintf("claim-%d.md — \"Background\" <b>&</b>", i),
			URL:  fmt.Sprintf("http://127.0.0.1:8080/docs/%032x/AbCdEfGhIjKlMnOpQrStUv/view#p-%d", i, i),
			Text: strings.Repeat("White matter <in> the \"developing\" brain\\ affects & cortex\u2028\t\x01\xff日本. ", 4),
		})
	}
	return out
}

// mcpGoBytes is what mcp-go writes for res: the JSON-RPC response as
// streamable HTTP encodes it.
func mcpGoBytes(t testing.TB, res *mcp.CallToolResult) []byte {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(7)), res)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSpliceMatchesMCPGo checks that a spliced response is byte for byte
// what mcp-go writes for the result with the JSON as a json.RawMessage (as
// before splices), and that the unspliced result is the same too.
func TestSpliceMatchesMCPGo(t *testing.T) {
	tok := newSpliceTokens()
	for _, v := range []any{spliceResponse(0), spliceResponse(1), spliceResponse(10),
		library.FetchResponse{ID: "a:1", Text: "x</script>", Metadata: map[string]any{"b": 1, "a": "\u2029"}}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		ref := mcp.NewToolResultStructured(json.RawMessage(b), string(b))
		ref.RawStructuredContent = b
		want := mcpGoBytes(t, ref)

		plain, err := structured(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		if got := mcpGoBytes(t, plain); !bytes.Equal(got, want) {
			t.Fatalf("unspliced:\n%s\nwant\n%s", got, want)
		}
		sp := &splice{tok: tok}
		res, err := structured(context.WithValue(context.Background(), spliceKey{}, sp), v)
		if err != nil {
			t.Fatal(err)
		}
		encoded := mcpGoBytes(t, res)
		if bytes.Contains(encoded, b) {
			t.Fatal("the placeholder result holds the JSON")
		}
		got, ok := sp.apply(encoded)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("spliced (%v):\n%s\nwant\n%s", ok, got, want)
		}
		if again, ok := sp.apply(encoded); ok || !bytes.Equal(again, encoded) {
			t.Fatal("a splice applied twice")
		}
	}
}

// TestSpliceLeavesOtherWrites checks that writes without both placeholders
// pass unchanged and keep the JSON pending.
func TestSpliceLeavesOtherWrites(t *testing.T) {
	sp := &splice{tok: newSpliceTokens()}
	sp.result([]byte(`{"results":[]}`))
	for _, p := range []string{`event: message` + "\n" + `data: {"method":"notifications/progress"}`, string(sp.tok.text)} {
		if got, ok := sp.apply([]byte(p)); ok || string(got) != p {
			t.Fatalf("apply(%q) = %q, %v", p, got, ok)
		}
	}
	p := "data: " + string(sp.tok.structured) + " " + string(sp.tok.text)
	if got, ok := sp.apply([]byte(p)); !ok || string(got) != `data: {"results":[]} "{\"results\":[]}"` {
		t.Fatalf("apply(%q) = %q, %v", p, got, ok)
	}
}

// BenchmarkEncodeSearchResult measures what encoding a search result of 10
// passages costs the server: as mcp-go encodes a json.RawMessage (before
// splices), as it encodes the value, and spliced.
func BenchmarkEncodeSearchResult(b *testing.B) {
	v := spliceResponse(10)
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			js, _ := json.Marshal(v)
			res := mcp.NewToolResultStructured(json.RawMessage(js), string(js))
			res.RawStructuredContent = js
			mcpGoBytes(b, res)
		}
	})
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, _ := structured(context.Background(), v)
			mcpGoBytes(b, res)
		}
	})
	tok := newSpliceTokens()
	b.Run("spliced", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sp := &splice{tok: tok}
			res, _ := structured(context.WithValue(context.Background(), spliceKey{}, sp), v)
			sp.apply(mcpGoBytes(b, res))
		}
	})
}

// TestSpliceOverHTTP checks spliced responses on the wire, as JSON and as
// the last event of a response mcp-go turned into an SSE stream because the
// tool sent a notification first: each is exactly what mcp-go writes for
// the result without a splice.
func TestSpliceOverHTTP(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{})
	v := spliceResponse(3)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	ref := mcp.NewToolResultStructured(json.RawMessage(b), string(b))
	ref.RawStructuredContent = b
	want := bytes.TrimSpace(mcpGoBytes(t, ref))
	for _, notify := range []bool{false, true} {
		s.mcp.AddTool(mcp.NewTool(fmt.Sprint("splice_", notify)), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if notify {
				if err := s.mcp.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "x"}); err != nil {
					return nil, err
				}
			}
			return structured(ctx, v)
		})
	}
	base := MustServe(t, s)
	rpc := &rawSession{t: t, url: base + "/mcp"}
	rpc.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	rpc.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, notify := range []bool{false, true} {
		resp, raw := rpc.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"splice_%v"}}`, notify))
		sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
		if sse != notify {
			t.Fatalf("notify %v: Content-Type %q", notify, resp.Header.Get("Content-Type"))
		}
		if sse {
			raw = sseData(raw)
		}
		if got := bytes.TrimSpace(raw); !bytes.Equal(got, want) {
			t.Fatalf("notify %v:\n%s\nwant\n%s", notify, got, want)
		}
	}
}
