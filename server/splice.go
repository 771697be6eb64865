package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// spliceKey is the context key of a streamable HTTP request's *splice.
type spliceKey struct{}

// spliceTokens are a server's two placeholders: random, so neither a
// client (which chooses request ids) nor a document can produce them, and
// of characters JSON encoding leaves alone.
type spliceTokens struct {
	text       []byte // `"mcpvec-splice-<random>"`: the text item's string
	structured []byte // `"mcpvec-splice-<random>-s"`: the structuredContent
}

func newSpliceTokens() spliceTokens {
	id := rand.Text() // 26 characters of base32
	return spliceTokens{text: []byte(`"mcpvec-splice-` + id + `"`), structured: []byte(`"mcpvec-splice-` + id + `-s"`)}
}

// splice hands a tool result's JSON, encoded once by the handler, to the
// response of its streamable HTTP request. mcp-go encodes a CallToolResult
// through its MarshalJSON, whose output encoding/json checks and compacts
// byte by byte, as it does the structured content inside it: for a search,
// three quarters of the CPU its response costs. With a splice the handler
// returns a result holding the two placeholders instead, and the request's
// writer replaces them, in the one Write that carries the response, with
// the JSON the handler encoded, so the bytes on the wire are those mcp-go
// would have written (TestSpliceMatchesMCPGo). It is safe for concurrent
// use: notifications may be written while the handler runs.
type splice struct {
	tok spliceTokens
	mu  sync.Mutex
	// structured waits for the response; nil when nothing is pending.
	// Its text form (a JSON string of it) is written by apply straight
	// into the response.
	structured []byte
	res        *mcp.CallToolResult // the placeholder result returned last
}

// spliceFrom returns the splice of ctx's request, or nil.
func spliceFrom(ctx context.Context) *splice {
	sp, _ := ctx.Value(spliceKey{}).(*splice)
	return sp
}

// result returns the placeholder result that stands for structured (the
// JSON of the result's structured content) and leaves structured for apply,
// which gives it to putBuf once copied.
func (sp *splice) result(structured []byte) *mcp.CallToolResult {
	res := placeholderResult(sp.tok)
	sp.mu.Lock()
	sp.structured = structured
	sp.res = res
	sp.mu.Unlock()
	return res
}

// placeholderResult is the result that stands for a spliced one.
func placeholderResult(tok spliceTokens) *mcp.CallToolResult {
	res := mcp.NewToolResultStructured(nil, string(tok.text[1:len(tok.text)-1]))
	res.RawStructuredContent = tok.structured
	return res
}

// placeholder reports whether res is the placeholder result returned
// last, its JSON still waiting for the response.
func (sp *splice) placeholder(res *mcp.CallToolResult) bool {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return res != nil && res == sp.res && sp.structured != nil
}

// apply returns p with the placeholders replaced by the pending JSON (and
// its text form), in a buffer from getBuf that the caller gives back once
// written, and true, when p holds both; else p and false.
func (sp *splice) apply(p []byte) ([]byte, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	st := sp.structured
	if st == nil {
		return p, false
	}
	// The last occurrences: a request id comes before the result.
	i, j := bytes.LastIndex(p, sp.tok.text), bytes.LastIndex(p, sp.tok.structured)
	if i < 0 || j < 0 {
		return p, false
	}
	out := getBuf(len(p) + 2*len(st) + len(st)/8 + 2)
	if i < j {
		out = appendJSONString(append(out, p[:i]...), st)
		out = append(append(out, p[i+len(sp.tok.text):j]...), st...)
		out = append(out, p[j+len(sp.tok.structured):]...)
	} else {
		out = append(append(out, p[:j]...), st...)
		out = appendJSONString(append(out, p[j+len(sp.tok.structured):i]...), st)
		out = append(out, p[i+len(sp.tok.text):]...)
	}
	sp.structured = nil
	putBuf(st)
	return out, true
}
