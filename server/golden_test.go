package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/golden"
)

// TestGoldenTranscripts records the JSON-RPC exchanges of a raw streamable
// HTTP session (protocol 2025-06-18) and compares them with
// testdata/golden/<case>.json, catching accidental schema or wording changes.
// Run with -update to accept a change.
func TestGoldenTranscripts(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{Version: "golden"})
	base := MustServe(t, s)
	rpc := &rawSession{t: t, url: base + "/mcp"}
	rpc.call("initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"golden","version":"1"}}}`, base)
	rpc.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rpc.call("tools_list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, base)
	rpc.call("search", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"impeller bolts"}}}`, base)
	rpc.call("fetch", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"d1:1"}}}`, base)
	rpc.call("search_empty_query", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":{"query":""}}}`, base)
	rpc.call("fetch_unknown_id", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"nope"}}}`, base)
}

// rawSession speaks streamable HTTP by hand so the transcript is exactly
// what goes over the wire.
type rawSession struct {
	t       *testing.T
	url     string
	session string
}

func (r *rawSession) post(body string) (*http.Response, []byte) {
	r.t.Helper()
	req, err := http.NewRequestWithContext(r.t.Context(), "POST", r.url, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		r.session = id
	}
	return resp, buf.Bytes()
}

func (r *rawSession) notify(body string) {
	r.t.Helper()
	if resp, b := r.post(body); resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		r.t.Fatalf("notification: %s %s", resp.Status, b)
	}
}

// call posts one request and compares request and response with the golden
// file; base (the server's random address) is replaced by {{base}}.
func (r *rawSession) call(name, body, base string) {
	r.t.Helper()
	resp, raw := r.post(body)
	if resp.StatusCode != http.StatusOK {
		r.t.Fatalf("%s: %s %s", name, resp.Status, raw)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = sseData(raw)
	} else if resp.ContentLength != int64(len(raw)) || resp.TransferEncoding != nil {
		// A JSON answer is held and sent with its length (hold.go).
		r.t.Errorf("%s: Content-Length %d, Transfer-Encoding %q; want %d, none", name, resp.ContentLength, resp.TransferEncoding, len(raw))
	}
	raw = bytes.ReplaceAll(raw, []byte(base), []byte("{{base}}"))
	var req, res any
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		r.t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		r.t.Fatalf("%s: response is not JSON: %v\n%s", name, err, raw)
	}
	got, err := json.MarshalIndent(map[string]any{"request": req, "response": res}, "", "  ")
	if err != nil {
		r.t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Compare(r.t, filepath.Join("testdata", "golden", name+".json"), got)
}

// sseData returns the data of the last event of an SSE body.
func sseData(b []byte) []byte {
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			last = []byte(strings.TrimSpace(d))
		}
	}
	return last
}
