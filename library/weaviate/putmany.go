package weaviate

import (
	"context"
	"fmt"

	"github.com/mcpvec/mcpvec/store"
)

// DocumentWrite is one document for PutDocuments: as PutDocument's
// arguments.
type DocumentWrite struct {
	Doc      *store.Document
	Chunks   []store.Chunk
	Vectors  [][]float32
	Original []byte // nil: none
}

// PutDocuments writes several documents as PutDocument writes one, in a
// few requests for all of them: one lookup of the old versions (by id and
// by SourcePath), every passage in batches of Options.BatchSize, one delete
// of the old versions' surplus passages, then the document objects (up to
// BatchSize a request, texts and originals included: keep the batch's
// bytes moderate). Every document's passages are written before any
// document object, so an interruption leaves each document as an
// interrupted PutDocument would. An old document at a write's path is
// deleted unless the batch writes it again. The results are in ws's order,
// and only returned when everything is written. Ids and paths must be
// unique within ws.
func (b *Collection) PutDocuments(ctx context.Context, ws []DocumentWrite) ([]store.PutResult, error) {
	name := fmt.Sprintf("put %d documents", len(ws))
	if len(ws) == 1 {
		name = "put document " + ws[0].Doc.ID
	}
	res, err := b.putDocuments(ctx, ws)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

func (b *Collection) putDocuments(ctx context.Context, ws []DocumentWrite) ([]store.PutResult, error) {
	ids, paths := map[string]int{}, map[string]bool{}
	for i, w := range ws {
		if err := b.checkPut(ctx, w.Doc, w.Chunks, w.Vectors); err != nil {
			return nil, fmt.Errorf("document %s: %w", w.Doc.ID, err)
		}
		if _, dup := ids[w.Doc.ID]; dup || (w.Doc.SourcePath != "" && paths[w.Doc.SourcePath]) {
			return nil, fmt.Errorf("document %s: its id or path is in the batch twice", w.Doc.ID)
		}
		ids[w.Doc.ID], paths[w.Doc.SourcePath] = i, w.Doc.SourcePath != ""
	}
	res, err := b.replaceOld(ctx, ws, ids)
	if err != nil {
		return nil, err
	}
	var passages, docs []object
	var surplus []where
	for _, w := range ws {
		doc := w.Doc
		doc.Chunks = make([]uint64, len(w.Chunks))
		for i := range w.Chunks {
			c := &w.Chunks[i]
			c.DocID, c.Index, c.Seq = doc.ID, i, seqOf(doc.ID, i)
			doc.Chunks[i] = c.Seq
			passages = append(passages, b.passageObject(c, doc.Title, w.Vectors[i]))
		}
		surplus = append(surplus, and(equalText("docId", doc.ID), where{"path": []string{"index"}, "operator": "GreaterThanEqual", "valueInt": len(w.Chunks)}))
		docs = append(docs, b.documentObject(doc, w.Original))
	}
	if err := b.putObjects(ctx, passages); err != nil {
		return nil, err
	}
	if _, err := b.deleteWhere(ctx, b.classes.passage, or(surplus...)); err != nil {
		return nil, err
	}
	if err := b.putObjects(ctx, docs); err != nil {
		return nil, err
	}
	for i, w := range ws {
		res[i].Added = w.Doc.Chunks
	}
	return res, nil
}

// replaceOld reads, in one query, the documents with the ids of ws (ids
// maps them to their index) and those at their SourcePaths; it deletes the
// others at those paths that ws does not write again, and notes in each
// result what the put replaces.
func (b *Collection) replaceOld(ctx context.Context, ws []DocumentWrite, ids map[string]int) ([]store.PutResult, error) {
	res := make([]store.PutResult, len(ws))
	var idList, pathList []string
	byPath := map[string]int{}
	for i, w := range ws {
		idList = append(idList, w.Doc.ID)
		if w.Doc.SourcePath != "" {
			pathList = append(pathList, w.Doc.SourcePath)
			byPath[w.Doc.SourcePath] = i
		}
	}
	filter := "where: " + gqlCond("docId", "ContainsAny", "valueText", idList)
	if len(pathList) > 0 {
		filter = fmt.Sprintf("where: {operator: Or, operands: [%s, %s]}",
			gqlCond("docId", "ContainsAny", "valueText", idList), gqlCond("sourcePath", "ContainsAny", "valueText", pathList))
	}
	var recs []docRecord
	if err := b.get(ctx, b.classes.document, filter+fmt.Sprintf(" limit: %d", 2*len(ws)+10), docFields, &recs); err != nil {
		return nil, err
	}
	var same []*store.Document
	for i := range recs {
		old := recs[i].document()
		if _, again := ids[old.ID]; again {
			same = append(same, old)
			continue
		}
		r := &res[byPath[old.SourcePath]]
		removed, err := b.DeleteDocument(ctx, old.ID)
		r.Removed = append(r.Removed, removed...)
		r.Replaced = append(r.Replaced, old.ID)
		if err != nil {
			return nil, err
		}
	}
	for _, old := range same {
		r := &res[ids[old.ID]]
		r.Removed = append(r.Removed, old.Chunks...)
		r.Replaced = append(r.Replaced, old.ID)
	}
	return res, nil
}
