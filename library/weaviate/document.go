package weaviate

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// PutDocument writes a document, its passages and their vectors, like
// store.DB.PutDocument: a document with the same id, or another at the same
// SourcePath, is replaced; doc.Chunks and the chunks' DocID, Index and Seq
// are filled in. The embedder must be recorded (SetEmbedder) and every
// vector must have its dimensions (store.ErrDimensions). original may be
// nil.
//
// It is not one transaction: passages are upserted first (same document id
// and index, same object), then the old version's surplus passages are
// deleted, then the document object is written. A failure part way leaves
// the old document listed, possibly with some new passages searchable;
// putting it again repairs that.
func (b *Collection) PutDocument(ctx context.Context, doc *store.Document, chunks []store.Chunk, vectors [][]float32, original []byte) (store.PutResult, error) {
	res, err := b.PutDocuments(ctx, []DocumentWrite{{doc, chunks, vectors, original}})
	if len(res) == 0 {
		return store.PutResult{}, err
	}
	return res[0], err
}

// checkPut validates ids, counts and vector dimensions against the
// recorded embedder.
func (b *Collection) checkPut(ctx context.Context, doc *store.Document, chunks []store.Chunk, vectors [][]float32) error {
	if doc.ID == "" {
		return fmt.Errorf("empty id")
	}
	if len(chunks) != len(vectors) {
		return fmt.Errorf("%d chunks but %d vectors", len(chunks), len(vectors))
	}
	emb, err := b.recordedEmbedder(ctx)
	if err != nil {
		return err
	}
	if emb == nil {
		return fmt.Errorf("the collection has no embedder recorded")
	}
	for i, v := range vectors {
		if len(v) != emb.Dimensions {
			return fmt.Errorf("chunk %d: %w (%d, want %d)", i, store.ErrDimensions, len(v), emb.Dimensions)
		}
	}
	return nil
}

func (b *Collection) passageObject(c *store.Chunk, title string, vec []float32) object {
	p := map[string]any{
		"text": c.Text, "docId": c.DocID, "index": c.Index, "seq": seqText(c.Seq), "start": c.Start, "end": c.End,
		"pageStart": c.PageStart, "pageEnd": c.PageEnd, "title": title, "headings": nonNil(c.Headings),
	}
	if b.opts.Analyzer != nil {
		p["terms"] = strings.Join(b.opts.Analyzer(c.IndexText()), " ")
	}
	return object{Class: b.classes.passage, ID: objectID("passage", c.ID()), Vector: vec, Properties: p}
}

func (b *Collection) documentObject(d *store.Document, original []byte) object {
	p := map[string]any{
		"docId": d.ID, "title": d.Title, "sourcePath": d.SourcePath, "sourceUrl": d.SourceURL,
		"mediaType": d.MediaType, "sha256": d.SHA256, "size": d.Size, "pages": d.Pages,
		"ingestedAt": d.IngestedAt.UTC().Format(time.RFC3339Nano),
		"pageStarts": nonNil(d.PageStarts), "chunks": seqTexts(d.Chunks), "text": d.Text,
	}
	if original != nil {
		p["original"] = original
	}
	return object{Class: b.classes.document, ID: objectID("document", d.ID), Properties: p}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// DeleteDocument removes a document and its passages (passages first, so
// an interrupted delete leaves the document listed and a second one
// finishes it). It returns the removed passages' sequence numbers, or
// store.ErrNotFound.
func (b *Collection) DeleteDocument(ctx context.Context, id string) ([]uint64, error) {
	d, err := b.DocumentInfo(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("delete document %s: %w", id, err)
	}
	if _, err := b.deleteWhere(ctx, b.classes.passage, equalText("docId", id)); err != nil {
		return nil, fmt.Errorf("delete document %s: %w", id, err)
	}
	path := "/v1/objects/" + b.classes.document + "/" + objectID("document", id)
	if err := b.c.do(ctx, http.MethodDelete, path, b.writeLevel(), nil, nil); err != nil && !isStatus(err, http.StatusNotFound) {
		return nil, fmt.Errorf("delete document %s: %w", id, err)
	}
	return d.Chunks, nil
}
