package corpus

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mcpvec/mcpvec/analysis"
	"gonum.org/v1/gonum/mat"
)

// Config sets how a model is fitted. Zero fields take DefaultConfig's.
type Config struct {
	Dims       int     // dimensions of the vectors
	MaxTerms   int     // vocabulary cap: the terms in most passages
	MinDF      int     // a term must occur in this many sampled passages
	Sample     int     // at most this many passages are fitted on
	PowerIters int     // power iterations of the range finder
	Oversample int     // extra columns of the range finder
	Exponent   float64 // projection = U·Σ^-Exponent (0: U, 1: classic fold-in)
	Seed       uint64  // the sample and the test matrix
}

// DefaultConfig is what mcpvec fits with.
func DefaultConfig() Config {
	return Config{Dims: 256, MaxTerms: 50000, MinDF: 2, Sample: 100000, PowerIters: 2, Oversample: 16, Exponent: 0.5, Seed: 1}
}

func (c Config) withDefaults() Config {
	d := DefaultConfig()
	for _, f := range []struct{ v, def *int }{{&c.Dims, &d.Dims}, {&c.MaxTerms, &d.MaxTerms}, {&c.MinDF, &d.MinDF}, {&c.Sample, &d.Sample}, {&c.PowerIters, &d.PowerIters}, {&c.Oversample, &d.Oversample}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if c.Seed == 0 {
		c.Seed = d.Seed
	}
	return c
}

// ErrTooLittle: the passages hold too few distinct terms (in at least
// MinDF passages) for a model of the asked dimensions.
var ErrTooLittle = errors.New("corpus: too little text to fit a model")

// Fit fits a model on passages, a uniform sample of at most cfg.Sample of
// them when there are more (reservoir sampling: only sampled passages are
// tokenised and kept). It reads passages once. Errors: ctx's (wrapped) or
// ErrTooLittle.
func Fit(ctx context.Context, passages iter.Seq[string], cfg Config) (*Model, error) {
	cfg = cfg.withDefaults()
	bags, seen, err := sample(ctx, passages, cfg)
	if err != nil {
		return nil, err
	}
	vocab, df := chooseVocab(bags, cfg)
	if len(vocab) < cfg.Dims+cfg.Oversample || len(bags) < cfg.Dims+cfg.Oversample {
		return nil, ErrTooLittle
	}
	m := &Model{dims: cfg.Dims, vocab: vocab, terms: make(map[string]int32, len(vocab)), fitted: len(bags), library: seen}
	m.idf = make([]float32, len(vocab))
	for i, t := range vocab {
		m.terms[t] = int32(i)
		m.idf[i] = float32(math.Log(float64(len(bags)) / float64(df[t])))
	}
	a := m.matrix(bags)
	u, sigma, err := randomizedSVD(ctx, a, cfg)
	if err != nil {
		return nil, err
	}
	m.setProjection(u, sigma, cfg.Exponent)
	return m, m.digest()
}

// sample tokenises a uniform sample of passages into term bags and counts
// all passages.
func sample(ctx context.Context, passages iter.Seq[string], cfg Config) ([]map[string]int, int, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	var bags []map[string]int
	n := 0
	for p := range passages {
		if n%1024 == 0 {
			if err := checkCtx(ctx, "fit"); err != nil {
				return nil, 0, err
			}
		}
		n++
		slot := len(bags)
		if slot >= cfg.Sample {
			if slot = rng.IntN(n); slot >= cfg.Sample {
				continue
			}
		}
		bag := map[string]int{}
		for _, t := range analysis.Tokenize(p) {
			bag[t]++
		}
		if slot == len(bags) {
			bags = append(bags, bag)
		} else {
			bags[slot] = bag
		}
	}
	return bags, n, nil
}

// chooseVocab keeps the MaxTerms terms in most passages, of those in at
// least MinDF, ordered by falling df then term; it returns them and the df.
func chooseVocab(bags []map[string]int, cfg Config) ([]string, map[string]int) {
	df := map[string]int{}
	for _, b := range bags {
		for t := range b {
			df[t]++
		}
	}
	var vocab []string
	for t, n := range df {
		if n >= cfg.MinDF && n < len(bags) {
			vocab = append(vocab, t)
		}
	}
	slices.SortFunc(vocab, func(a, b string) int {
		return cmp.Or(cmp.Compare(df[b], df[a]), cmp.Compare(a, b))
	})
	return vocab[:min(len(vocab), cfg.MaxTerms)], df
}

// matrix builds the passages' normalised tf-idf columns over m's
// vocabulary.
func (m *Model) matrix(bags []map[string]int) *sparse {
	a := &sparse{rows: len(m.vocab), ptr: make([]int, 1, len(bags)+1)}
	for _, b := range bags {
		start := len(a.idx)
		counts := map[int32]int{}
		for t, c := range b {
			if r, ok := m.terms[t]; ok {
				counts[r] = c
			}
		}
		var norm float64
		for _, r := range sortedRows(counts) {
			w := (1 + math.Log(float64(counts[r]))) * float64(m.idf[r])
			a.idx = append(a.idx, r)
			a.val = append(a.val, w)
			norm += w * w
		}
		if norm > 0 {
			norm = 1 / math.Sqrt(norm)
			for i := start; i < len(a.val); i++ {
				a.val[i] *= norm
			}
		}
		a.ptr = append(a.ptr, len(a.idx))
	}
	return a
}

// setProjection stores u's columns scaled by sigma^-exp as float32 rows.
func (m *Model) setProjection(u *mat.Dense, sigma []float64, exp float64) {
	m.proj = make([]float32, len(m.vocab)*m.dims)
	m.sigma = make([]float32, m.dims)
	for j := range m.dims {
		m.sigma[j] = float32(sigma[j])
		s := 1.0
		if sigma[j] > 0 {
			s = math.Pow(sigma[j], -exp)
		}
		for r := range m.vocab {
			m.proj[r*m.dims+j] = float32(u.At(r, j) * s)
		}
	}
}

// sortedRows returns the keys of counts in ascending order, so float sums
// are made in the same order every time.
func sortedRows(counts map[int32]int) []int32 {
	rows := make([]int32, 0, len(counts))
	for r := range counts {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	return rows
}
