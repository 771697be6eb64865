package openai

import (
	"math"

	"github.com/mcpvec/mcpvec/analysis"
)

// piece is one request input: a whole text or a slice of a text that
// was over the per-input token limit.
type piece struct {
	text   string
	tokens int
	owner  int // index of the text in the caller's slice
}

// split cuts text into pieces of at most limit tokens as counted by
// count, preferring to cut at whitespace (analysis.TruncateTokens). It always
// makes progress, so a count that claims one rune is over the limit still
// terminates (that rune is sent alone).
func split(text string, limit int, count func(string) int) []string {
	var out []string
	for text != "" {
		head := analysis.TruncateTokens(text, limit, count)
		out = append(out, head)
		text = text[len(head):]
	}
	return out
}

// makePieces turns texts into request inputs: empty texts become a single
// space (OpenAI rejects empty strings) and texts over limit are split.
func makePieces(texts []string, limit int, count func(string) int) []piece {
	pieces := make([]piece, 0, len(texts))
	for i, t := range texts {
		if t == "" {
			t = " "
		}
		for _, p := range split(t, limit, count) {
			pieces = append(pieces, piece{text: p, tokens: max(count(p), 1), owner: i})
		}
	}
	return pieces
}

// plan groups consecutive pieces into batches of at most maxInputs
// inputs and maxTokens estimated tokens. It returns [start, end) ranges.
func plan(pieces []piece, maxInputs, maxTokens int) [][2]int {
	var batches [][2]int
	start, tokens := 0, 0
	for i, p := range pieces {
		if i > start && (i-start >= maxInputs || tokens+p.tokens > maxTokens) {
			batches = append(batches, [2]int{start, i})
			start, tokens = i, 0
		}
		tokens += p.tokens
	}
	if start < len(pieces) {
		batches = append(batches, [2]int{start, len(pieces)})
	}
	return batches
}

// combine folds piece vectors back into one vector per text. A text
// that was split gets the token-weighted mean of its pieces, rescaled to
// unit length (OpenAI vectors are unit length, so cosine stays meaningful).
func combine(pieces []piece, vecs [][]float32, ntexts int) [][]float32 {
	out := make([][]float32, ntexts)
	weight := make([]int, ntexts)
	for i, p := range pieces {
		weight[p.owner]++
		if out[p.owner] == nil {
			out[p.owner] = vecs[i]
			continue
		}
		if weight[p.owner] == 2 {
			// Second piece: switch the first from borrowed to a weighted copy.
			first := out[p.owner]
			acc := make([]float32, len(first))
			w := float32(pieces[i-1].tokens)
			for j, v := range first {
				acc[j] = v * w
			}
			out[p.owner] = acc
		}
		w := float32(p.tokens)
		for j, v := range vecs[i] {
			out[p.owner][j] += v * w
		}
	}
	for t, v := range out {
		if weight[t] > 1 {
			normalize(v)
		}
	}
	return out
}

func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
