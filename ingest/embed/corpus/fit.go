package corpus

import (
	"cmp"
	"context"
	"errors"
	"hash/fnv"
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
// tokenised and kept, as compact term bags). It reads passages once.
// Errors: ctx's (wrapped) or ErrTooLittle.
func Fit(ctx context.Context, passages iter.Seq[string], cfg Config) (*Model, error) {
	cfg = cfg.withDefaults()
	s, err := sample(ctx, passages, cfg)
	if err != nil {
		return nil, err
	}
	rowOf, vocab, df := s.chooseVocab(cfg)
	if len(vocab) < cfg.Dims+cfg.Oversample || len(s.bags) < cfg.Dims+cfg.Oversample {
		return nil, ErrTooLittle
	}
	m := &Model{dims: cfg.Dims, vocab: vocab, terms: make(map[string]int32, len(vocab)), fitted: len(s.bags), library: s.seen}
	m.idf = make([]float32, len(vocab))
	for i, t := range vocab {
		m.terms[t] = int32(i)
		m.idf[i] = float32(math.Log(float64(len(s.bags)) / float64(df[i])))
	}
	a := m.matrix(s.bags, rowOf)
	s = nil // the bags are in a now
	u, sigma, err := randomizedSVD(ctx, a, cfg)
	if err != nil {
		return nil, err
	}
	m.setProjection(u, sigma, cfg.Exponent)
	return m, m.digest()
}

// sampled is what sample keeps: the bags, the dictionary of their terms
// and the number of passages read.
type sampled struct {
	bags  []bag
	ids   map[string]uint32
	terms []string // id → term
	seen  int
}

// bag is a sampled passage: its term ids in ascending order with their
// counts, and a seed from its text for its row of the random test matrix,
// so that the model does not depend on the order passages were stored in.
type bag struct {
	ids    []uint32
	counts []uint16
	seed   uint64
}

// sample tokenises a uniform sample of passages into term bags and counts
// all passages.
func sample(ctx context.Context, passages iter.Seq[string], cfg Config) (*sampled, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	s := &sampled{ids: map[string]uint32{}}
	for p := range passages {
		if s.seen%1024 == 0 {
			if err := checkCtx(ctx, "fit"); err != nil {
				return nil, err
			}
		}
		s.seen++
		slot := len(s.bags)
		if slot >= cfg.Sample {
			if slot = rng.IntN(s.seen); slot >= cfg.Sample {
				continue
			}
		}
		b := s.bag(p)
		if slot == len(s.bags) {
			s.bags = append(s.bags, b)
		} else {
			s.bags[slot] = b
		}
	}
	return s, nil
}

// bag tokenises one passage.
func (s *sampled) bag(text string) bag {
	counts := map[uint32]int{}
	for _, t := range analysis.Tokenize(text) {
		id, ok := s.ids[t]
		if !ok {
			id = uint32(len(s.terms))
			s.ids[t] = id
			s.terms = append(s.terms, t)
		}
		counts[id]++
	}
	b := bag{ids: make([]uint32, 0, len(counts)), counts: make([]uint16, len(counts)), seed: textSeed(text)}
	for id := range counts {
		b.ids = append(b.ids, id)
	}
	slices.Sort(b.ids)
	for i, id := range b.ids {
		b.counts[i] = uint16(min(counts[id], math.MaxUint16))
	}
	return b
}

// textSeed is the FNV-1a hash of text.
func textSeed(text string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	return h.Sum64()
}

// chooseVocab keeps the MaxTerms terms in most passages, of those in at
// least MinDF and not in all, ordered by falling df then term. It returns
// each term id's row (-1: not kept), the vocabulary and its df.
func (s *sampled) chooseVocab(cfg Config) (rowOf []int32, vocab []string, df []int) {
	all := make([]int, len(s.terms))
	for _, b := range s.bags {
		for _, id := range b.ids {
			all[id]++
		}
	}
	var keep []uint32
	for id, n := range all {
		if n >= cfg.MinDF && n < len(s.bags) {
			keep = append(keep, uint32(id))
		}
	}
	slices.SortFunc(keep, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(all[b], all[a]), cmp.Compare(s.terms[a], s.terms[b]))
	})
	keep = keep[:min(len(keep), cfg.MaxTerms)]
	rowOf = make([]int32, len(s.terms))
	for i := range rowOf {
		rowOf[i] = -1
	}
	vocab, df = make([]string, len(keep)), make([]int, len(keep))
	for r, id := range keep {
		rowOf[id], vocab[r], df[r] = int32(r), s.terms[id], all[id]
	}
	return rowOf, vocab, df
}

// matrix builds the passages' normalised tf-idf columns over m's
// vocabulary, rows ascending in each column.
func (m *Model) matrix(bags []bag, rowOf []int32) *sparse {
	a := &sparse{rows: len(m.vocab), ptr: make([]int, 1, len(bags)+1)}
	type entry struct {
		row   int32
		count uint16
	}
	var col []entry
	for _, b := range bags {
		a.seeds = append(a.seeds, b.seed)
		col = col[:0]
		for i, id := range b.ids {
			if r := rowOf[id]; r >= 0 {
				col = append(col, entry{r, b.counts[i]})
			}
		}
		slices.SortFunc(col, func(x, y entry) int { return cmp.Compare(x.row, y.row) })
		start := len(a.idx)
		var norm float64
		for _, e := range col {
			w := (1 + math.Log(float64(e.count))) * float64(m.idf[e.row])
			a.idx = append(a.idx, e.row)
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
