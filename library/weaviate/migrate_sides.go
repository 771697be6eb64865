package weaviate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpvec/mcpvec/store"
)

// dbSide is an embedded library as a copy's source or sink.
type dbSide struct{ db *store.DB }

func (s dbSide) documents(context.Context) ([]*store.Document, error) { return s.db.Documents() }
func (s dbSide) meta(context.Context) (store.Meta, error)             { return s.db.Meta() }
func (s dbSide) setting(_ context.Context, name string) ([]byte, error) {
	return s.db.Setting(name)
}
func (s dbSide) info(_ context.Context, id string) (*store.Document, error) {
	return s.db.DocumentInfo(id)
}
func (s dbSide) putSetting(_ context.Context, name string, v []byte) error {
	return s.db.PutSetting(name, v)
}

func (s dbSide) setEmbedder(_ context.Context, e store.EmbedderInfo) error {
	m, err := s.db.Meta()
	if err != nil {
		return err
	}
	if m.Embedder != nil && !m.Embedder.Same(e) {
		return fmt.Errorf("%w: the library holds vectors of %s, not %s", store.ErrEmbedderMismatch, m.Embedder, e)
	}
	return s.db.SetEmbedder(e)
}

func (s dbSide) put(_ context.Context, ws []DocumentWrite) error {
	for _, w := range ws {
		if _, err := s.db.PutDocument(w.Doc, w.Chunks, w.Vectors, w.Original); err != nil {
			return err
		}
	}
	return nil
}

// read returns a document with its text, passages, vectors and original.
func (s dbSide) read(_ context.Context, d *store.Document) (*store.Document, []store.Chunk, [][]float32, []byte, error) {
	return s.db.FullDocument(d.ID)
}

// backendSide is a Weaviate library as a copy's source or sink.
type backendSide struct{ b *Collection }

func (s backendSide) documents(ctx context.Context) ([]*store.Document, error) {
	return s.b.Documents(ctx)
}
func (s backendSide) meta(ctx context.Context) (store.Meta, error) { return s.b.Meta(ctx) }
func (s backendSide) setting(ctx context.Context, name string) ([]byte, error) {
	return s.b.Setting(ctx, name)
}
func (s backendSide) info(ctx context.Context, id string) (*store.Document, error) {
	return s.b.DocumentInfo(ctx, id)
}
func (s backendSide) putSetting(ctx context.Context, name string, v []byte) error {
	return s.b.PutSetting(ctx, name, v)
}
func (s backendSide) setEmbedder(ctx context.Context, e store.EmbedderInfo) error {
	return s.b.SetEmbedder(ctx, e)
}

func (s backendSide) put(ctx context.Context, ws []DocumentWrite) error {
	_, err := s.b.PutDocuments(ctx, ws)
	return err
}

func (s backendSide) read(ctx context.Context, d *store.Document) (*store.Document, []store.Chunk, [][]float32, []byte, error) {
	full, err := s.b.Document(ctx, d.ID)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	chunks, vecs, err := s.b.passagesWithVectors(ctx, d.ID, len(full.Chunks))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	original, err := s.b.Original(ctx, d.ID)
	if errors.Is(err, store.ErrNotFound) {
		original, err = nil, nil
	}
	return full, chunks, vecs, original, err
}

// vectorRecord is a passage with its vector; its _additional shadows the
// embedded record's (encoding/json takes the shallower field).
type vectorRecord struct {
	passageRecord
	Additional struct {
		Vector []float32 `json:"vector"`
	} `json:"_additional"`
}

// passagesWithVectors returns a document's n passages in order, with their
// vectors, or an error when any is missing.
func (b *Collection) passagesWithVectors(ctx context.Context, docID string, n int) ([]store.Chunk, [][]float32, error) {
	var recs []vectorRecord
	fields := "text docId index seq start end pageStart pageEnd title headings _additional { vector }"
	args := gqlWhere("docId", "Equal", "valueText", docID) + fmt.Sprintf(" limit: %d", n+1)
	if err := b.get(ctx, b.classes.passage, args, fields, &recs); err != nil {
		return nil, nil, fmt.Errorf("passages of %s: %w", docID, err)
	}
	slices.SortFunc(recs, func(x, y vectorRecord) int { return x.Index - y.Index })
	if len(recs) != n {
		return nil, nil, fmt.Errorf("passages of %s: %d found, the document has %d (run Check)", docID, len(recs), n)
	}
	chunks, vecs := make([]store.Chunk, n), make([][]float32, n)
	for i, r := range recs {
		if r.Index != i || len(r.Additional.Vector) == 0 {
			return nil, nil, fmt.Errorf("passages of %s: passage %d missing or without a vector", docID, i)
		}
		chunks[i], vecs[i] = *r.hit().Chunk, r.Additional.Vector
	}
	return chunks, vecs, nil
}
