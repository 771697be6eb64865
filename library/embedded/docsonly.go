package embedded

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/library"

	"github.com/mcpvec/mcpvec/store"
)

// OpenDocuments returns a Library over db that reads documents and passages
// (Fetch, Document, Documents, the originals) without loading an index: at
// a million passages Open spends 0.7 s and 0.9 GB of mapped pages pinning
// the BM25 segment, which a fetch never reads. Searches, counts and writes
// return library.ErrNoIndexes. Safe for concurrent use.
func OpenDocuments(db *store.DB, opts library.Options) *library.Library {
	return library.New(docsOnly{db}, nil, opts)
}

// docsOnly is the Backend of OpenDocuments.
type docsOnly struct{ db *store.DB }

func (d docsOnly) Put(context.Context, *store.Document, []store.Chunk, [][]float32, []byte) (store.PutResult, error) {
	return store.PutResult{}, library.ErrNoIndexes
}
func (d docsOnly) Apply(context.Context, store.PutResult) error     { return library.ErrNoIndexes }
func (d docsOnly) Delete(context.Context, string) ([]uint64, error) { return nil, library.ErrNoIndexes }
func (d docsOnly) Document(_ context.Context, id string, text bool) (*store.Document, error) {
	if text {
		return d.db.Document(id)
	}
	return d.db.DocumentInfo(id)
}
func (d docsOnly) DocumentByPath(_ context.Context, path string) (*store.Document, error) {
	return d.db.DocumentByPath(path)
}
func (d docsOnly) Documents(context.Context) ([]*store.Document, error) { return d.db.Documents() }

// TitlePage, AllRows and RowsVersion read the store's rows
// (library.RowLister).
func (d docsOnly) TitlePage(_ context.Context, from, n int, desc bool) (store.RowPage, bool, error) {
	return d.db.TitlePage(from, n, desc)
}
func (d docsOnly) AllRows(context.Context) (store.RowPage, bool, error) { return d.db.AllRows() }
func (d docsOnly) RowsVersion(context.Context) (uint64, bool, error)    { return d.db.RowsVersion() }
func (d docsOnly) Chunks(_ context.Context, seqs []uint64) ([]*store.Chunk, error) {
	return d.db.Chunks(seqs)
}
func (d docsOnly) Original(_ context.Context, id string) (io.ReadSeeker, int64, time.Time, error) {
	r, size, mod, err := d.db.OriginalReader(id)
	if err != nil {
		return nil, 0, time.Time{}, err // not a typed nil in the interface
	}
	return r, size, mod, nil
}
func (d docsOnly) Candidates(context.Context, library.Query) (library.Candidates, error) {
	return library.Candidates{}, library.ErrNoIndexes
}
func (d docsOnly) Counts(context.Context) library.IndexStats { return library.IndexStats{} }
func (d docsOnly) Check(context.Context) (library.Health, error) {
	return library.Health{}, fmt.Errorf("check: %w", library.ErrNoIndexes)
}
func (d docsOnly) Save(context.Context) error { return nil }

// ReleaseMapped releases the store's mapped pages (MappedReleaser).
func (d docsOnly) ReleaseMapped() error { return d.db.ReleaseMapped() }
