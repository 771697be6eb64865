// Package embedtest holds a deterministic embedder for tests of the
// packages that consume embeddings (the live library, the MCP server), so
// that each of them does not carry its own copy.
package embedtest

import (
	"context"
	"hash/fnv"
	"math"
	"strings"
	"unicode"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// Words is a bag-of-words embedder: each token adds 1 to the dimension its
// FNV-1a hash picks, then the vector is scaled to unit length (a text
// without tokens gets the first unit vector). Texts sharing words are near,
// so searches in tests find what they should. The zero Tokenize splits the
// lower-cased text at everything but letters and digits. A Words value is
// safe for concurrent use if Tokenize is; its methods never fail.
type Words struct {
	Dims     int
	Tokenize func(string) []string // nil = lower-case runs of letters and digits
}

// Vector returns the vector of text.
func (w Words) Vector(text string) []float32 {
	v := make([]float32, w.Dims)
	for _, t := range w.tokens(text) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(t))
		v[h.Sum32()%uint32(w.Dims)]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n == 0 {
		v[0] = 1
		return v
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

func (w Words) tokens(text string) []string {
	if w.Tokenize != nil {
		return w.Tokenize(text)
	}
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Embed returns one vector per text.
func (w Words) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = w.Vector(t)
	}
	return out, nil
}

// EmbedQuery returns the vector of query.
func (w Words) EmbedQuery(_ context.Context, query string) ([]float32, error) {
	return w.Vector(query), nil
}

// Identity reports provider "test", model "words" and Dims.
func (w Words) Identity() embed.Identity {
	return embed.Identity{Provider: "test", Model: "words", Dimensions: w.Dims}
}
