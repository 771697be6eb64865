package library

import (
	"context"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// Backend is where a library's documents, passages, vectors and lexical
// index live. The Library around it embeds queries, fuses candidate lists,
// drops overlapping passages, cuts snippets and fetch text, and keeps the
// embed cache; a Backend stores and retrieves. The embedded backend (Open:
// bbolt, HNSW and BM25 in process) is the first implementation.
//
// Implementations must be safe for concurrent use. Lookups of an unknown
// document or passage return an error wrapping store.ErrNotFound.
type Backend interface {
	// Put stores a document with its passages, their vectors and its
	// original bytes (nil: none), replacing an earlier version with the same
	// id or path, and indexes the passages.
	Put(doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error)
	// Apply indexes a write made directly to the backend's store; a backend
	// whose writes all go through Put may treat it as a no-op.
	Apply(res store.PutResult) error
	// Delete removes a document with its passages and vectors and returns
	// the removed passages' sequence numbers.
	Delete(id string) ([]uint64, error)
	// Document returns a document; with text false, without its text, and
	// then possibly shared with other callers: it must not be modified.
	Document(id string, text bool) (*store.Document, error)
	// Documents lists every document, without text.
	Documents() ([]*store.Document, error)
	// Chunks returns the passages seqs, in order.
	Chunks(seqs []uint64) ([]*store.Chunk, error)
	// Original opens a document's original file: a reader that holds no
	// lock or transaction between reads (a slow HTTP client reads it), its
	// size and its modification time; store.ErrNotFound when none is kept.
	Original(id string) (io.ReadSeeker, int64, time.Time, error)
	// Candidates ranks passages for q. A backend that searches hybrid in
	// one call returns Fused; otherwise it returns the lists q.Mode asks
	// for and the Library fuses them.
	Candidates(ctx context.Context, q Query) (Candidates, error)
	// Counts reports the sizes of the indexes, loading first any index
	// whose load was deferred.
	Counts() IndexStats
	// Check reports the backend's consistency (see Library.Check).
	Check(ctx context.Context) (Health, error)
	// Save persists index changes made since the last Save.
	Save() error
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
