package vector

import (
	"errors"
	"fmt"
)

// Metric selects how vectors are compared. Scores are always "higher is better".
type Metric int

const (
	// Cosine normalises every vector once on insert and every query before the
	// search, then scores by dot product (= cosine similarity, in [-1, 1]).
	Cosine Metric = iota
	// Dot scores by the raw inner product; vectors are stored as given.
	Dot
)

// String returns the metric's name.
func (m Metric) String() string {
	switch m {
	case Cosine:
		return "cosine"
	case Dot:
		return "dot"
	}
	return fmt.Sprintf("metric(%d)", int(m))
}

// Config holds the HNSW parameters. The zero value of a field means "use the
// default" (see DefaultConfig), so Config{Metric: Dot} is valid.
type Config struct {
	// Metric is Cosine (default) or Dot.
	Metric Metric
	// M is the number of links per node on layers >= 1; layer 0 keeps 2*M.
	M int
	// EfConstruction is the candidate list size while inserting.
	EfConstruction int
	// EfSearch is the least candidate list size while searching: Search
	// raises it to k when k is larger, and to a floor that grows with
	// Len() (efFloor: none below about 170k vectors, 101 at 300k, 256 at
	// 1M), so recall@10 stays near 0.96 as the index grows. SearchEf takes
	// an exact ef instead.
	EfSearch int
	// Seed makes level assignment deterministic (single-goroutine inserts only).
	Seed int64
	// ExactBelow makes Search use the exact scan while Len() is below it. Zero
	// means the measured default; a negative value disables the switch.
	ExactBelow int
	// Scan makes Search answer every query by SearchScan, and the index
	// keeps no graph: Add only publishes the vector, Save writes no node
	// records (and deletes those a graph build left), Load and LoadSums
	// read none, and SearchEf falls back to SearchScan. For vectors a
	// graph cannot search well, such as the offline embedder's: see
	// SearchScan.
	Scan bool
	// Source, when set, is where the index reads vectors back for exact
	// re-scoring, and the index keeps only their int8 codes in memory (a
	// quarter of the float32 bytes). When nil it keeps a float32 copy of
	// every vector. It must be comparable (a pointer, say), since Config is.
	Source Source
}

// Source reads vectors back by id, as they were given to Add or Load (the
// store keeps them). Search calls it, without holding the index's locks,
// for the 3·k best candidates of the int8 walk, which it re-scores.
type Source interface {
	// Vectors calls fn(i, vec) for each ids[i] that has a vector, one call
	// at a time; vec need only be valid during the call. Ids without a
	// vector are skipped (they keep their int8 score). It must be safe for
	// concurrent use; an error fails the search and is returned wrapped.
	Vectors(ids []uint64, fn func(i int, vec []float32)) error
}

// Defaults measured on clustered data (see bench_test.go and the package doc).
const (
	defaultM              = 16
	defaultEfConstruction = 128
	defaultEfSearch       = 64
	defaultExactBelow     = 3000 // BenchmarkSwitchover: graph wins from ~4000 (384-d and 1536-d), exact up to ~2000
	maxM                  = 256
	maxLevel              = 16
)

// DefaultConfig returns the measured defaults: Cosine, M 16, EfConstruction
// 128, EfSearch 64, Seed 1, ExactBelow 3000.
func DefaultConfig() Config {
	return Config{
		Metric:         Cosine,
		M:              defaultM,
		EfConstruction: defaultEfConstruction,
		EfSearch:       defaultEfSearch,
		Seed:           1,
		ExactBelow:     defaultExactBelow,
	}
}

// withDefaults fills zero fields and clamps nonsensical ones.
func (c Config) withDefaults() Config {
	if c.Metric != Dot {
		c.Metric = Cosine
	}
	if c.M <= 1 {
		c.M = defaultM
	}
	if c.M > maxM {
		c.M = maxM
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = defaultEfConstruction
	}
	if c.EfConstruction < c.M {
		c.EfConstruction = c.M
	}
	if c.EfSearch <= 0 {
		c.EfSearch = defaultEfSearch
	}
	if c.ExactBelow == 0 {
		c.ExactBelow = defaultExactBelow
	}
	return c
}

// Errors returned by this package. Callers branch on them with errors.Is.
var (
	// ErrDimensionMismatch is returned when a vector or query does not have Dim() components.
	ErrDimensionMismatch = errors.New("index: dimension mismatch")
	// ErrInvalidVector is returned for vectors holding NaN or Inf, or a zero
	// vector under Cosine (it cannot be normalised).
	ErrInvalidVector = errors.New("index: invalid vector")
	// ErrInvalidDimension is returned when the index was created with dim < 1.
	ErrInvalidDimension = errors.New("index: invalid dimension")
	// ErrCorrupt describes a stored graph that failed validation. Load does not
	// return it (it rebuilds instead) but reports it in LoadStats.Reason.
	ErrCorrupt = errors.New("index: corrupt stored graph")
	// ErrIncompatible describes a stored graph written with another dimension,
	// metric, M or format version; Load rebuilds and reports it in LoadStats.Reason.
	ErrIncompatible = errors.New("index: incompatible stored graph")
)
