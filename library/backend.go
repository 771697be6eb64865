package library

import (
	"context"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

// Backend is where a library's documents, passages, vectors and lexical
// index live. The Library around it embeds queries, fuses candidate lists,
// drops overlapping passages, cuts snippets and fetch text, and keeps the
// write session; a Backend stores and retrieves. The embedded backend (Open:
// bbolt, HNSW and BM25 in process) and the Weaviate adapter
// (library/weaviate) implement it.
//
// Every method that may wait (on a disk, a lock, a deferred index load or
// a network) takes a context first; a backend that cannot stop midway may
// ignore it. A Backend may implement the optional capabilities below
// (Overviewer, Summarizer, ChunkLender, PrefixRanker, Mover, Folder,
// LoadedCounter, MappedReleaser, EmbedCacher, DocFreqer); New looks for
// them once.
//
// Implementations must be safe for concurrent use. Lookups of an unknown
// document or passage return an error wrapping store.ErrNotFound.
type Backend interface {
	// Put stores a document with its passages, their vectors and its
	// original bytes (nil: none), replacing an earlier version with the same
	// id or path, and indexes the passages from what it is handed (chunks
	// and vecs, whose Seq it sets), not from a read of what it stored.
	Put(ctx context.Context, doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error)
	// Apply indexes a write made directly to the backend's store; a backend
	// whose writes all go through Put may treat it as a no-op.
	Apply(ctx context.Context, res store.PutResult) error
	// Delete removes a document with its passages and vectors and returns
	// the removed passages' sequence numbers.
	Delete(ctx context.Context, id string) ([]uint64, error)
	// DocumentByPath returns the document stored from a source path,
	// without its text.
	DocumentByPath(ctx context.Context, path string) (*store.Document, error)
	// Document returns a document; with text false, without its text, and
	// then possibly shared with other callers: it must not be modified.
	Document(ctx context.Context, id string, text bool) (*store.Document, error)
	// Documents lists every document, without text.
	Documents(ctx context.Context) ([]*store.Document, error)
	// Chunks returns the passages seqs, in order.
	Chunks(ctx context.Context, seqs []uint64) ([]*store.Chunk, error)
	// Original opens a document's original file: a reader that holds no
	// lock or transaction between reads (a slow HTTP client reads it), its
	// size and its modification time; store.ErrNotFound when none is kept.
	Original(ctx context.Context, id string) (io.ReadSeeker, int64, time.Time, error)
	// Candidates ranks passages for q. A backend that searches hybrid in
	// one call returns Fused; otherwise it returns the lists q.Mode asks
	// for and the Library fuses them.
	Candidates(ctx context.Context, q Query) (Candidates, error)
	// Counts reports the sizes of the indexes, loading first any index
	// whose load was deferred (a failed or cancelled load counts as none).
	Counts(ctx context.Context) IndexStats
	// Check reports the backend's consistency (see Library.Check).
	Check(ctx context.Context) (Health, error)
	// Save persists index changes made since the last Save.
	Save(ctx context.Context) error
}

// Overviewer is a Backend with a quicker Check (Library.Overview): counts
// from running totals, no record-by-record check, Problems nil. It must
// not report a write stored but not yet indexed as an inconsistency.
type Overviewer interface {
	Overview(ctx context.Context) (Health, error)
}

// Summarizer is a Backend that counts its contents without listing every
// document (Library.Summary); ok false means it cannot tell cheaply, and
// the Library lists the documents instead.
type Summarizer interface {
	Summary(ctx context.Context) (s Summary, ok bool, err error)
}

// ChunkLender is a Backend that can lend its passages for the length of a
// call instead of copying them (store.DB.ViewChunks): fn sees the passages
// seqs in order, nil for one that cannot be read, until it returns false.
// A lent passage, its strings included, must not be kept after fn returns.
// The error matches store.ErrCorrupt when the store is damaged.
type ChunkLender interface {
	ViewChunks(ctx context.Context, seqs []uint64, fn func(i int, c *store.Chunk) bool) error
}

// PrefixRanker is a Backend whose lexical list is a total order when
// LexicalPrefix reports true: its m best are the first m of its n best,
// for any m ≤ n (the embedded backend's BM25). A lexical search then ranks
// a short list first (Library.Search).
type PrefixRanker interface {
	LexicalPrefix() bool
}

// Mover is a Backend that can point a document at a new source path
// without re-storing its passages (store.DB.MoveDocument); a document
// already at path is replaced and dropped from the indexes. An unknown id
// is an error wrapping store.ErrNotFound.
type Mover interface {
	Move(ctx context.Context, id, path, sourceURL string, modTime time.Time) (store.PutResult, error)
}

// Folder is a Backend that can compact its indexes before a Save, so that
// later opens read less (the embedded backend folds BM25's records into a
// new segment, lexical.Index.Fold). Fold then saves; errors are Save's.
type Folder interface {
	Fold(ctx context.Context) error
}

// LoadedCounter is a Backend whose Counts may load a deferred index:
// LoadedCounts reports the sizes without starting or waiting for such a
// load (IndexStats.VectorsDeferred set while it has not ended). It does not
// block.
type LoadedCounter interface {
	LoadedCounts() IndexStats
}

// MappedReleaser is a Backend that maps its file into the process:
// ReleaseMapped lets the pages reads mapped go (they stay in the page
// cache; see store.DB.ReleaseMapped). Safe for concurrent use.
type MappedReleaser interface {
	ReleaseMapped() error
}

// EmbedCacher is a Backend that can keep embedded vectors of passages not
// stored yet, so an interrupted write session pays for no embedding twice
// (the embedded backend's aux bucket AuxEmbedCache). EmbedCache wraps emb,
// whose vectors have identity id.
type EmbedCacher interface {
	EmbedCache(emb Embedder, id embed.Identity, opts EmbedCacheOptions) CachingEmbedder
}

// CachingEmbedder is an Embedder whose answers an EmbedCacher keeps. It is
// safe for concurrent use.
type CachingEmbedder interface {
	Embedder
	// Forget drops the entries of texts (their passages are stored).
	Forget(texts []string) error
	// Clear drops every entry.
	Clear() error
	// Stats reports what the cache did so far.
	Stats() EmbedCacheStats
}

// BatchPutter is a Backend that stores several documents in one commit
// (the embedded backend: store.DB.PutDocuments) and indexes them after it,
// as Put does one; nothing is stored when it fails. Writes.GroupCommits
// uses it.
type BatchPutter interface {
	PutBatch(ctx context.Context, items []store.PutItem) ([]store.PutResult, error)
}

// capabilities are the optional interfaces of a Library's Backend, looked
// up once by New; nil (false) where the backend lacks one.
type capabilities struct {
	overview Overviewer
	summary  Summarizer
	lend     ChunkLender
	prefix   bool
	move     Mover
	fold     Folder
	loaded   LoadedCounter
	release  MappedReleaser
	cache    EmbedCacher
	version  DocumentsVersioner
	dfs      DocFreqer
	batch    BatchPutter
}

// capabilitiesOf looks up be's optional interfaces.
func capabilitiesOf(be Backend) capabilities {
	var c capabilities
	c.overview, _ = be.(Overviewer)
	c.summary, _ = be.(Summarizer)
	c.lend, _ = be.(ChunkLender)
	if p, ok := be.(PrefixRanker); ok {
		c.prefix = p.LexicalPrefix()
	}
	c.move, _ = be.(Mover)
	c.fold, _ = be.(Folder)
	c.loaded, _ = be.(LoadedCounter)
	c.release, _ = be.(MappedReleaser)
	c.cache, _ = be.(EmbedCacher)
	c.version, _ = be.(DocumentsVersioner)
	c.dfs, _ = be.(DocFreqer)
	c.batch, _ = be.(BatchPutter)
	return c
}

// Query is what a Backend ranks passages for.
type Query struct {
	Text string
	// Tokens are analysis.Tokenize(Text), split once by the Library for
	// every use; nil: a backend that needs them splits Text itself.
	Tokens []string
	Vector []float32 // the embedded Text; nil when there is no embedder
	Mode   Mode
	N      int // candidates wanted per list
	// Again marks a second ranking of the same search, with a larger N
	// (Library.Search used up its short list): a backend that makes
	// searches queue for the CPUs does not queue it behind first rankings
	// again, or under load such a search would wait its turn twice.
	Again bool
	// Filter, when not nil, is the passages the query's operators allow
	// (in:, path:, type:, after:, before:): a backend ranks only those,
	// returning fewer than N only when fewer match.
	Filter *Filter
}

// Hit is one ranked passage; a higher Score is better.
type Hit struct {
	Seq   uint64
	Score float64
}

// Candidates are a Backend's ranked passages, best first.
type Candidates struct {
	Lexical, Vector []Hit // nil when not asked for or unavailable
	Fused           []Hit // set by a backend that fuses itself
}
