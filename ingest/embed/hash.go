package embed

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// HashConfig configures the built-in offline embedder. Zero fields take the
// defaults of DefaultHashConfig; a negative weight switches a feature off.
type HashConfig struct {
	Dimensions   int     // vector length
	MinN, MaxN   int     // character n-gram lengths, counted in runes of "<word>"
	WordWeight   float64 // weight of a word's stem feature
	NgramWeight  float64 // total weight of a word's character n-grams
	BigramWeight float64 // weight of adjacent-word features (full weight hurts)

	// QueryWeight, when set, scales each query word (lower-case, unstemmed)
	// in EmbedQuery only, e.g. by an idf taken from the lexical index at
	// query time. Passage vectors never use it, so they do not go stale as
	// the corpus grows. It must be safe for concurrent use and is not part
	// of Identity.
	QueryWeight func(word string) float64
}

// DefaultHashConfig returns the default offline embedder settings: 384
// dimensions, stems plus character 4-5-grams, no bigrams. They were chosen
// with hash_eval_test.go and hash_variants_eval_test.go on SciFact,
// Cranfield and misspelled or re-worded SciFact claims (the numbers are in
// docs/benchmarks/embedders.md): fused with BM25, 256 to 1024 dimensions score the same
// within 0.01 nDCG@10; alone, 384 keeps most of 1024's quality on the
// variants (0.44 against 0.49; 256 falls to 0.24) at 3/8 of the bytes.
// Rerun them before changing these.
func DefaultHashConfig() HashConfig {
	return HashConfig{Dimensions: 384, MinN: 4, MaxN: 5, WordWeight: 1, NgramWeight: 1, BigramWeight: -1}
}

func (c HashConfig) withDefaults() HashConfig {
	d := DefaultHashConfig()
	if c.Dimensions <= 0 {
		c.Dimensions = d.Dimensions
	}
	if c.MinN <= 0 {
		c.MinN = d.MinN
	}
	if c.MaxN < c.MinN {
		c.MaxN = max(c.MinN, d.MaxN)
	}
	for _, f := range []struct {
		p   *float64
		def float64
	}{
		{&c.WordWeight, d.WordWeight}, {&c.NgramWeight, d.NgramWeight}, {&c.BigramWeight, d.BigramWeight},
	} {
		if *f.p == 0 || math.IsNaN(*f.p) || math.IsInf(*f.p, 0) {
			*f.p = f.def
		}
		if *f.p < 0 {
			*f.p = 0
		}
	}
	return c
}

// Hash is the built-in offline embedder: signed feature hashing of word
// stems and character n-grams (which catch inflections, compounds and typos
// that word matching misses) with sublinear term frequency, L2-normalised.
// It needs no model and no network, is deterministic across runs and
// machines, and is safe for concurrent use.
//
// Caveats: it matches surface forms, not meanings; it is lexical-grade, not
// a semantic model (docs/benchmarks/embedders.md has its measured quality). Passage vectors
// use no corpus statistics, so they never go stale; the idf-style weighting
// happens at query time through QueryWeight/SetQueryWeight, without which
// vector-only quality drops a lot. Changing the hashing or features must
// change the model name, so libraries built with the old vectors are
// refused rather than mixed.
type Hash struct {
	cfg   HashConfig
	model string
	words func(string) []string                // analysis.Words, or WordsWhole for hash-v2
	qw    atomic.Pointer[func(string) float64] // query-side word weight, may be nil
}

// NewHash returns an offline embedder; zero fields of cfg take defaults.
// Its model is hash-v3: words as analysis.Words makes them, so runs of
// Chinese, Japanese, Korean and Thai are character bigrams.
func NewHash(cfg HashConfig) *Hash { return newHash(cfg, 3) }

// newHash returns the offline embedder of model version v: 3, or 2, whose
// words kept a run of a script written without spaces whole (English and
// other spaced text give the same vectors in both).
func newHash(cfg HashConfig, v int) *Hash {
	cfg = cfg.withDefaults()
	model := fmt.Sprintf("hash-v%d-n%d%d-w%s-c%s-b%s", v, cfg.MinN, cfg.MaxN,
		fmtWeight(cfg.WordWeight), fmtWeight(cfg.NgramWeight), fmtWeight(cfg.BigramWeight))
	h := &Hash{cfg: cfg, model: model, words: analysis.Words}
	if v == 2 {
		h.words = analysis.WordsWhole
	}
	h.SetQueryWeight(cfg.QueryWeight)
	return h
}

// SetQueryWeight replaces HashConfig.QueryWeight (nil removes it), so the
// weight can be wired to an index opened after the embedder, e.g.
// lexical.Index.IDF. It is safe for concurrent use with EmbedQuery.
func (h *Hash) SetQueryWeight(fn func(word string) float64) {
	if fn == nil {
		h.qw.Store(nil)
		return
	}
	h.qw.Store(&fn)
}

func fmtWeight(w float64) string { return strconv.FormatFloat(w, 'g', 3, 64) }

// Identity reports provider HashProvider, a model name that encodes every
// setting that changes passage vectors, and the dimensions.
func (h *Hash) Identity() Identity {
	return Identity{Provider: HashProvider, Model: h.model, Dimensions: h.cfg.Dimensions}
}

// Embed returns one unit vector per text. A text without any word gives the
// constant unit vector (all components 1/√Dimensions), nearly orthogonal to
// every hashed vector, so cosine is always defined. The only error is ctx's
// (wrapped), checked between texts.
func (h *Hash) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("hash embed: %w", err)
		}
		out[i] = h.vector(t, nil)
	}
	return out, nil
}

// EmbedQuery returns the unit vector for query, weighting its words with
// HashConfig.QueryWeight when set. Errors: ctx's (wrapped), or ErrPanic
// (wrapped) when the query weight function panics.
func (h *Hash) EmbedQuery(ctx context.Context, query string) (_ []float32, err error) {
	defer hashRecover(&err) // QueryWeight is caller code
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("hash embed query: %w", err)
	}
	var weight func(string) float64
	if p := h.qw.Load(); p != nil {
		weight = *p
	}
	return h.vector(query, weight), nil
}

// hashRecover turns a panic into an error wrapping ErrPanic.
func hashRecover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("hash embed query: %w: %v", ErrPanic, r)
	}
}

// vector builds the hashed feature vector of text.
func (h *Hash) vector(text string, weight func(string) float64) []float32 {
	v := make([]float32, h.cfg.Dimensions)
	words := h.words(text)
	// Unique words in first-occurrence order: float32 sums depend on order,
	// and vectors must be bit-identical run to run.
	counts := make(map[string]int, len(words))
	uniq := make([]string, 0, len(words))
	for _, w := range words {
		if counts[w] == 0 {
			uniq = append(uniq, w)
		}
		counts[w]++
	}
	buf := make([]byte, 0, 64)
	var offs []int
	for _, w := range uniq {
		scale := 1 + math.Log(float64(counts[w]))
		if weight != nil {
			scale *= weight(w)
		}
		if scale <= 0 || math.IsNaN(scale) {
			continue
		}
		h.addWord(v, w, scale, &buf, &offs)
	}
	if h.cfg.BigramWeight > 0 {
		h.addBigrams(v, words, weight)
	}
	normalize(v)
	return v
}

// addWord adds a word's stem feature and its character n-grams; the n-grams
// share NgramWeight so long words do not outweigh short ones.
func (h *Hash) addWord(v []float32, w string, scale float64, buf *[]byte, offs *[]int) {
	if h.cfg.WordWeight > 0 {
		addFeature(v, 'w', analysis.Stem(w), scale*h.cfg.WordWeight)
	}
	if h.cfg.NgramWeight <= 0 {
		return
	}
	b := append(append(append((*buf)[:0], '<'), w...), '>')
	o := (*offs)[:0]
	for i := range b {
		if utf8.RuneStart(b[i]) {
			o = append(o, i)
		}
	}
	o = append(o, len(b))
	*buf, *offs = b, o
	runes := len(o) - 1
	count := 0
	for n := h.cfg.MinN; n <= h.cfg.MaxN; n++ {
		count += max(0, runes-n+1)
	}
	if count == 0 {
		return
	}
	per := scale * h.cfg.NgramWeight / math.Sqrt(float64(count))
	for n := h.cfg.MinN; n <= h.cfg.MaxN; n++ {
		for i := 0; i+n <= runes; i++ {
			addFeature(v, byte('0'+n), string(b[o[i]:o[i+n]]), per)
		}
	}
}

// addBigrams adds adjacent-word features at BigramWeight.
func (h *Hash) addBigrams(v []float32, words []string, weight func(string) float64) {
	for i := 1; i < len(words); i++ {
		s := h.cfg.BigramWeight
		if weight != nil {
			s *= math.Sqrt(max(0, weight(words[i-1])*weight(words[i])))
		}
		addFeature(v, 'b', words[i-1]+" "+words[i], s)
	}
}

// addFeature hashes kind+feature (FNV-1a, then a 64-bit finaliser) to a
// slot and a sign.
func addFeature(v []float32, kind byte, feature string, w float64) {
	x := uint64(14695981039346656037)
	x = (x ^ uint64(kind)) * 1099511628211
	for i := 0; i < len(feature); i++ {
		x = (x ^ uint64(feature[i])) * 1099511628211
	}
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	if x>>63 == 1 {
		w = -w
	}
	v[(x&(1<<63-1))%uint64(len(v))] += float32(w)
}

func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		for i := range v {
			v[i] = float32(1 / math.Sqrt(float64(len(v))))
		}
		return
	}
	s := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= s
	}
}
