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
	// structured and text (a JSON string of structured) wait for the
	// response; nil when nothing is pending.
	structured, text []byte
}

// spliceFrom returns the splice of ctx's request, or nil.
func spliceFrom(ctx context.Context) *splice {
	sp, _ := ctx.Value(spliceKey{}).(*splice)
	return sp
}

// result returns the placeholder result that stands for structured (the
// JSON of the result's structured content) and leaves structured and its
// text form for apply.
func (sp *splice) result(structured []byte) *mcp.CallToolResult {
	text := appendJSONString(make([]byte, 0, len(structured)+len(structured)/8+2), structured)
	sp.mu.Lock()
	sp.structured, sp.text = structured, text
	sp.mu.Unlock()
	res := mcp.NewToolResultStructured(nil, string(sp.tok.text[1:len(sp.tok.text)-1]))
	res.RawStructuredContent = sp.tok.structured
	return res
}

// apply returns p with the placeholders replaced by the pending JSON, and
// true, when p holds both; else p and false.
func (sp *splice) apply(p []byte) ([]byte, bool) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.structured == nil {
		return p, false
	}
	// The last occurrences: a request id comes before the result.
	i, j := bytes.LastIndex(p, sp.tok.text), bytes.LastIndex(p, sp.tok.structured)
	if i < 0 || j < 0 {
		return p, false
	}
	a, b := sp.text, sp.structured
	ta, tb := sp.tok.text, sp.tok.structured
	if j < i {
		i, j, a, b, ta, tb = j, i, b, a, tb, ta
	}
	out := make([]byte, 0, len(p)+len(a)+len(b))
	out = append(append(out, p[:i]...), a...)
	out = append(append(out, p[i+len(ta):j]...), b...)
	out = append(out, p[j+len(tb):]...)
	sp.structured, sp.text = nil, nil
	return out, true
}
