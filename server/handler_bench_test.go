package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/reallib"
)

// BenchmarkSearchHandlerRealLibrary is BenchmarkSearchHTTPRealLibrary
// without the network and the MCP client: tools/call search requests go
// straight to the server's handler on one goroutine, so ns/op is the
// server's own CPU per search (all but net/http's connection handling),
// the share a server-side change moves. Skipped without the library and
// queries (see BenchmarkSearchHTTPRealLibrary).
func BenchmarkSearchHandlerRealLibrary(b *testing.B) {
	lib, _, queries := reallib.Open(b, quietLogger(b))
	s := MustNew(b, realLib{lib}, Options{})
	h := s.Handler()
	post := func(sid, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || sid == "" {
		b.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	bodies := make([]string, len(queries))
	for i, q := range queries {
		qj, _ := json.Marshal(q)
		bodies[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":%s}}}`, i+2, qj)
	}
	b.ReportAllocs()
	i, cpu := 0, reallib.StartCPU()
	for b.Loop() {
		if w := post(sid, bodies[i%len(bodies)]); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"structuredContent":{"results":`) {
			b.Fatalf("search: %d %s", w.Code, w.Body)
		}
		i++
	}
	cpu.Report(b)
}
