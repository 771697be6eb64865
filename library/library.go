package library

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

// Errors a caller (and through it, a model) can act on.
var (
	ErrEmptyQuery   = errors.New("empty query: pass a few words describing what to find")
	ErrQueryTooLong = errors.New("query too long")
	ErrNotFound     = errors.New("no document or passage with that id")
	// ErrNoIndexes is returned by a search, count or write of a Library
	// whose backend loaded no index (embedded.OpenDocuments: it reads
	// documents and passages only).
	ErrNoIndexes = errors.New("library opened for reading documents only: no search index is loaded")
)

// QueryEmbedder turns a query into a vector of the library's dimensions.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

// Mode selects the retrieval method.
type Mode string

// Retrieval modes; Hybrid is the default.
const (
	Hybrid  Mode = "hybrid"
	Lexical Mode = "lexical"
	Vector  Mode = "vector"
)

// ParseMode parses "hybrid", "lexical" or "vector"; "" parses as "" (the
// library's default, Options.Mode).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Hybrid, Lexical, Vector, "":
		return m, nil
	}
	return "", fmt.Errorf("unknown search mode %q (want hybrid, lexical or vector)", s)
}

// Fusion methods for hybrid search.
const (
	// FusionRRF is weighted reciprocal rank fusion.
	FusionRRF = "rrf"
	// FusionScores is a weighted sum of min-max normalised scores: lexical
	// weight 1, vector weight VectorWeight.
	FusionScores = "scores"
)

// Options tunes the query path. Zero values mean the defaults.
type Options struct {
	K             int  // results per search (default 10)
	MaxK          int  // upper bound on K (default 50)
	Mode          Mode // default Hybrid
	MaxQueryLen   int  // characters (default DefaultMaxQueryLen)
	SnippetChars  int  // search result text (default 480)
	MaxFetchChars int  // fetch text cap (default 100000)
	// Candidates is how many hits each retriever contributes to fusion
	// (default 100).
	Candidates int
	// RRFK is the reciprocal-rank-fusion constant (default 60).
	RRFK float64
	// VectorWeight weighs the vector list against the lexical one (weight
	// 1) in fusion (default 1; see OptionsFor).
	VectorWeight float64
	// Fusion is FusionRRF (default) or FusionScores.
	Fusion string
	// VectorSeeds is how many of BM25's best candidates start the graph
	// search of a hybrid search, besides its entry point
	// (vector.Index.SearchSeeded); 0, the default, seeds none. BM25 then
	// searches for max(Candidates, VectorSeeds); fusion still takes its
	// Candidates best. Vector searches are not seeded. See OptionsFor.
	VectorSeeds int
	// UseIDF, if set, is called once the lexical index is loaded with its
	// inverse document frequency of a word (safe for concurrent use). The
	// offline embedder weighs query words by it (embed.Hash.SetQueryWeight);
	// passage vectors use no corpus statistics, so they never go stale.
	UseIDF func(idf func(word string) float64)
	// Concurrency is how many BM25 and vector searches of the embedded
	// backend run at once (default GOMAXPROCS); more wait their turn, first
	// come first served (see turns). A remote backend is not limited.
	Concurrency int
	Index       vector.Config
	Lexical     lexical.Config
	Logger      *slog.Logger
	// Rerank is the second stage after fusion; off unless Rerank.Reranker
	// is set.
	Rerank RerankOptions
	// LongQuery tunes the search of long queries.
	LongQuery LongQueryOptions
}

// WithDefaults returns o with its zero values replaced by the defaults.
func (o Options) WithDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.K, 10)
	def(&o.MaxK, 50)
	def(&o.MaxQueryLen, DefaultMaxQueryLen)
	def(&o.SnippetChars, 480)
	def(&o.MaxFetchChars, 100000)
	def(&o.Candidates, 100)
	if o.Mode == "" {
		o.Mode = Hybrid
	}
	if o.RRFK <= 0 {
		o.RRFK = 60
	}
	if o.VectorWeight <= 0 {
		o.VectorWeight = 1
	}
	if o.Index == (vector.Config{}) {
		o.Index = vector.DefaultConfig()
	}
	o.LongQuery = o.LongQuery.withDefaults()
	if o.Lexical == (lexical.Config{}) {
		o.Lexical = lexical.DefaultConfig()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// OptionsFor returns the query-path defaults for an embedder of traits t
// (embed.TraitsOf). A semantic model gets hybrid search with plain
// reciprocal rank fusion.
//
// A lexical-grade embedder (embed.Traits.LexicalGrade), such as the
// offline one, is searched by BM25 alone: fused with BM25 it adds nothing
// measurable (384 dimensions, nDCG@10 lexical / hybrid: SciFact
// 0.697 / 0.692, its misspelled and re-worded variants 0.578 / 0.579,
// Cranfield 0.382 / 0.382; long-PDF check, cited page relevant in the top 5
// 0.777 / 0.777, at rank 1 0.553 / 0.553) while the vector half costs as
// much as BM25 per query. So its libraries search BM25 alone by default;
// its vectors are still stored and indexed, and hybrid or vector search is
// one option away. Asked for hybrid, its ranking enters as a light
// correction (score fusion with vector weight 0.15; equal-weight RRF gave
// SciFact 0.646).
//
// Its vectors are searched by the int8 scan (vector.Config.Scan), not the
// graph: every claim is at almost the same distance from many passages,
// where a graph walk loses its way. Recall@10 of the 100 candidates against
// the exact cosine top 10, SciFact's 300 claims (BenchmarkRecallRealLibrary,
// "library" and "scan"): the graph at ef 200 found 0.41 at 100k passages
// and 0.28 at 1M (0.43 at 1M seeded with BM25's 300 best, for 20.7 ms of
// CPU a hybrid query); the scan finds 1.000 at both. It costs 2.2 ms of CPU
// a query at 100k and 16.9 ms at 1M; a lone scan is split across the CPUs,
// so a hybrid query alone at 1M answers in 12 ms (21 ms of CPU).
func OptionsFor(t embed.Traits) Options {
	if t.LexicalGrade {
		ix := vector.DefaultConfig()
		ix.Scan = true
		return Options{Mode: Lexical, Fusion: FusionScores, VectorWeight: 0.15, Index: ix}
	}
	if t.ScoreFusion > 0 {
		// Vectors fitted on the library (the corpus embedder) crowd
		// together more than a network model's: a denser graph searched
		// at ef 200 keeps recall@10 >= 0.95 at 100k passages
		// (docs/benchmarks/corpus-vectors.md).
		ix := vector.DefaultConfig()
		ix.M, ix.EfConstruction, ix.EfSearch = 24, 200, 200
		return Options{Fusion: FusionScores, VectorWeight: t.ScoreFusion, Index: ix}
	}
	return Options{Fusion: FusionRRF}
}

// EmbedderOptions returns OptionsFor emb's traits, with query words
// weighed by the library's idf when emb can weigh them
// (embed.QueryWeighter, the offline embedder): how a library of emb is
// opened to search as `mcpvec serve` searches it.
func EmbedderOptions(emb embed.Embedder) Options {
	o := OptionsFor(embed.TraitsOf(emb.Identity()))
	if w, ok := emb.(embed.QueryWeighter); ok {
		o.UseIDF = w.SetQueryWeight
	}
	return o
}

// Mode is the search mode used when a search names none.
func (l *Library) Mode() Mode { return l.opts.Mode }

// Library is the live library: the one query path (search, fetch) and every
// write (ingest writes, rm, move) over a Backend. Create it with New
// (embedded.Open does for the embedded store). It is safe for concurrent
// use: searches run in parallel with writes.
type Library struct {
	be   Backend
	caps capabilities // be's optional interfaces, looked up by New
	emb  QueryEmbedder
	opts Options
	rr   *reranker // nil: no rerank stage
	// docList keeps the document list for searches with operators.
	docList *docList
}

// New returns a Library answering from be, whose optional capabilities
// (Overviewer, Mover, ...) it looks up once here. emb may be nil, which
// restricts searches to lexical mode.
func New(be Backend, emb QueryEmbedder, opts Options) *Library {
	opts = opts.WithDefaults()
	return &Library{be: be, caps: capabilitiesOf(be), emb: emb, opts: opts, rr: newReranker(opts.Rerank), docList: &docList{}}
}

// Backend returns the Backend l answers from, for a caller that needs what
// only that backend offers (a test of the embedded backend's indexes).
func (l *Library) Backend() Backend { return l.be }

// Apply brings the indexes up to date after a store write made directly to
// the store (store.DB.PutDocument): it removes the removed passages and
// indexes the added ones, read back from the store (Writes.Put indexes
// what it is handed instead). Call Save to persist.
func (l *Library) Apply(ctx context.Context, res store.PutResult) error { return l.be.Apply(ctx, res) }

// Save persists what changed in the indexes since the last Save or Open.
func (l *Library) Save(ctx context.Context) error { return l.be.Save(ctx) }

// Fold is Save, first letting a backend that can (Folder) compact its
// indexes: the embedded backend asks its BM25 index to write a new segment
// in place of the passages it keeps as records beside the last one, when
// there are more than a few (lexical.Index.Fold). A command ending a long
// write calls it, so that every later open reads one segment instead of
// copying most posting lists to add the records. Errors are Save's.
func (l *Library) Fold(ctx context.Context) error {
	if l.caps.fold != nil {
		return l.caps.fold.Fold(ctx)
	}
	return l.Save(ctx)
}

// ReleaseMapped releases the pages of the library file that reads have
// mapped into the process (store.DB.ReleaseMapped; they stay in the page
// cache). Opening a library reads its indexes back and maps much of the
// file, which would otherwise stay in the process's resident set. It does
// nothing for a backend that maps no file (MappedReleaser). Safe for
// concurrent use.
func (l *Library) ReleaseMapped() error {
	if l.caps.release == nil {
		return nil
	}
	return l.caps.release.ReleaseMapped()
}

// IndexStats describes the in-memory indexes for `mcpvec info`.
type IndexStats struct {
	VectorPassages  int `json:"vector_passages"`
	LexicalPassages int `json:"lexical_passages"`
	Dimensions      int `json:"dimensions"`
	// VectorsDeferred: the vector index is not loaded yet (LoadedIndexStats
	// only); it loads at the first search, count or write that needs it.
	VectorsDeferred bool `json:"vectors_deferred,omitempty"`
	// LexicalRebuilt is why the open rebuilt the BM25 index from the
	// stored passages, its saved form being unusable (a damaged segment),
	// when the rebuilt index is not saved yet (a read-only open): the next
	// open rebuilds it again until a write saves it. Empty otherwise.
	LexicalRebuilt string `json:"lexical_rebuilt,omitempty"`
}

// IndexStats reports the sizes of the indexes; it waits for an index whose
// load the backend deferred (the embedded backend's vector index) until ctx
// ends. Sizes it could not learn (ctx ended, a remote backend failed) are 0.
func (l *Library) IndexStats(ctx context.Context) IndexStats { return l.be.Counts(ctx) }

// LoadedIndexStats is IndexStats without loading a deferred vector index
// (LoadedCounter): while the backend's deferred load has not ended,
// VectorsDeferred is true and VectorPassages 0. A page that only shows the
// sizes should not load half a gigabyte (at a million passages) that no
// search asked for. Without LoadedCounter it is IndexStats(ctx).
func (l *Library) LoadedIndexStats(ctx context.Context) IndexStats {
	if l.caps.loaded != nil {
		return l.caps.loaded.LoadedCounts()
	}
	return l.IndexStats(ctx)
}
