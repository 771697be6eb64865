package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/mcpvec/mcpvec/analysis"
)

// Model is a fitted LSA model: the vocabulary, each term's idf and its row
// of the projection (term directions scaled by the singular values'
// power -Exponent). It is immutable after Fit or Unmarshal and safe for
// concurrent use.
type Model struct {
	dims    int
	terms   map[string]int32 // term → row
	vocab   []string         // row → term, for serialisation
	idf     []float32        // per row
	proj    []float32        // rows × dims, row-major
	sigma   []float32        // the singular values, largest first
	fitted  int              // passages the model was fitted on
	library int              // passages in the library at fit time
	id      string           // short digest of the serialised model
}

// Dims is the length of the model's vectors.
func (m *Model) Dims() int { return m.dims }

// Terms is the size of the model's vocabulary.
func (m *Model) Terms() int { return len(m.vocab) }

// Fitted returns the number of passages the model was fitted on and the
// number the library held then (they differ when Fit sampled).
func (m *Model) Fitted() (sample, library int) { return m.fitted, m.library }

// ID is a short digest of the model's contents: two models with the same ID
// make the same vectors.
func (m *Model) ID() string { return m.id }

// Vector folds text into the model: its sublinear tf-idf weights over the
// vocabulary times the projection, L2-normalised. A text with no term in
// the vocabulary gives the constant unit vector (all components 1/√dims),
// so cosine is always defined. Safe for concurrent use.
func (m *Model) Vector(text string) []float32 {
	v := make([]float32, m.dims)
	counts := map[int32]int{}
	for _, t := range analysis.Tokenize(text) {
		if r, ok := m.terms[t]; ok {
			counts[r]++
		}
	}
	acc := make([]float64, m.dims)
	for _, r := range sortedRows(counts) {
		w := (1 + math.Log(float64(counts[r]))) * float64(m.idf[r])
		row := m.proj[int(r)*m.dims : int(r+1)*m.dims]
		for j, p := range row {
			acc[j] += w * float64(p)
		}
	}
	var n float64
	for _, a := range acc {
		n += a * a
	}
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		c := float32(1 / math.Sqrt(float64(m.dims)))
		for j := range v {
			v[j] = c
		}
		return v
	}
	n = math.Sqrt(n)
	for j, a := range acc {
		v[j] = float32(a / n)
	}
	return v
}

// Coverage returns the share of text's term occurrences that the model's
// vocabulary holds (1 for a text without terms). A library whose new
// passages fall well below the fitted passages' coverage has drifted.
func (m *Model) Coverage(text string) (in, total int) {
	for _, t := range analysis.Tokenize(text) {
		total++
		if _, ok := m.terms[t]; ok {
			in++
		}
	}
	return in, total
}

// digest sets m.id from the serialised model.
func (m *Model) digest() error {
	b, err := m.MarshalBinary()
	if err != nil {
		return err
	}
	s := sha256.Sum256(b)
	m.id = hex.EncodeToString(s[:6])
	return nil
}

// checkCtx returns ctx's error wrapped with what was being done.
func checkCtx(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("corpus %s: %w", what, err)
	}
	return nil
}
