package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

const docFields = "docId title sourcePath sourceUrl mediaType sha256 size pages ingestedAt pageStarts chunks"

// docRecord is a document object's properties as GraphQL returns them.
type docRecord struct {
	DocID      string   `json:"docId"`
	Title      string   `json:"title"`
	SourcePath string   `json:"sourcePath"`
	SourceURL  string   `json:"sourceUrl"`
	MediaType  string   `json:"mediaType"`
	SHA256     string   `json:"sha256"`
	Size       int64    `json:"size"`
	Pages      int      `json:"pages"`
	IngestedAt string   `json:"ingestedAt"`
	PageStarts []int    `json:"pageStarts"`
	Chunks     []string `json:"chunks"`
	Text       string   `json:"text"`
	Additional struct {
		ID string `json:"id"`
	} `json:"_additional"`
}

func (r *docRecord) document() *store.Document {
	t, _ := time.Parse(time.RFC3339Nano, r.IngestedAt)
	return &store.Document{
		ID: r.DocID, Title: r.Title, SourcePath: r.SourcePath, SourceURL: r.SourceURL,
		MediaType: r.MediaType, SHA256: r.SHA256, Size: r.Size, Pages: r.Pages, IngestedAt: t,
		PageStarts: r.PageStarts, Chunks: parseSeqs(r.Chunks), Text: r.Text,
	}
}

// get runs a GraphQL Get on class with args and fields and decodes the
// objects into out (a pointer to a slice).
func (b *Collection) get(ctx context.Context, class, args, fields string, out any) error {
	return b.getAll(ctx, getPart{class, args, fields, out})
}

// getPart is one class's part of a GraphQL Get: its arguments, the fields
// asked for, and where its objects are decoded (a pointer to a slice).
type getPart struct {
	class, args, fields string
	out                 any
}

// getAll runs the parts (each on a different class) in one GraphQL Get.
func (b *Collection) getAll(ctx context.Context, parts ...getPart) error {
	var q strings.Builder
	q.WriteString("{ Get {")
	for _, p := range parts {
		args := p.args
		if b.replicated {
			args += " consistencyLevel: " + b.consistency
		}
		fmt.Fprintf(&q, " %s(%s) { %s }", p.class, args, p.fields)
	}
	q.WriteString(" } }")
	var data struct {
		Get map[string]json.RawMessage `json:"Get"`
	}
	err := b.c.graphql(ctx, q.String(), &data)
	if err != nil && b.replicated && errors.Is(err, ErrUnreachable) && ctx.Err() == nil {
		// A read is safe to repeat. With replicas, one that waited on a node
		// dying under it (until the client's timeout) finds the survivors on
		// a second try, the dead node being known by then.
		err = b.c.graphql(ctx, q.String(), &data)
	}
	if err != nil {
		return err
	}
	for _, p := range parts {
		raw := data.Get[p.class]
		if len(raw) == 0 || string(raw) == "null" {
			raw = []byte("[]")
		}
		if err := json.Unmarshal(raw, p.out); err != nil {
			return fmt.Errorf("decode %s objects: %w", p.class, err)
		}
	}
	return nil
}

// gqlWhere is a GraphQL filter on one property; value is JSON-encoded,
// which is also a valid GraphQL literal.
func gqlWhere(path, op, valueKey string, value any) string {
	return "where: " + gqlCond(path, op, valueKey, value)
}

// gqlCond is gqlWhere's condition, also an operand of And and Or.
func gqlCond(path, op, valueKey string, value any) string {
	v, _ := json.Marshal(value)
	return fmt.Sprintf("{path: [%q], operator: %s, %s: %s}", path, op, valueKey, v)
}

// documentWhere returns the one document matching a filter, or
// store.ErrNotFound.
func (b *Collection) documentWhere(ctx context.Context, filter, fields string) (*store.Document, error) {
	var recs []docRecord
	if err := b.get(ctx, b.classes.document, filter+" limit: 1", fields, &recs); err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, store.ErrNotFound
	}
	return recs[0].document(), nil
}

// Document returns a document with its full text, or store.ErrNotFound.
func (b *Collection) Document(ctx context.Context, id string) (*store.Document, error) {
	d, err := b.documentWhere(ctx, gqlWhere("docId", "Equal", "valueText", id), docFields+" text")
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	return d, nil
}

// DocumentInfo returns a document without its text, or store.ErrNotFound.
// It asks whether the object exists first (a HEAD request, far cheaper for
// Weaviate than a GraphQL query), so the question an ingest asks of every
// new file is answered by that alone.
func (b *Collection) DocumentInfo(ctx context.Context, id string) (*store.Document, error) {
	path := "/v1/objects/" + b.classes.document + "/" + objectID("document", id)
	err := b.c.do(ctx, http.MethodHead, path, b.readLevel(), nil, nil)
	if isStatus(err, http.StatusNotFound) {
		return nil, fmt.Errorf("document %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	d, err := b.documentWhere(ctx, gqlWhere("docId", "Equal", "valueText", id), docFields)
	if err != nil {
		return nil, fmt.Errorf("document %s: %w", id, err)
	}
	return d, nil
}

// DocumentInfos returns the documents with these ids (without text) that
// exist, in no particular order, in one query per 100 ids.
func (b *Collection) DocumentInfos(ctx context.Context, ids []string) ([]*store.Document, error) {
	var out []*store.Document
	for start := 0; start < len(ids); start += 100 {
		part := ids[start:min(start+100, len(ids))]
		var recs []docRecord
		args := gqlWhere("docId", "ContainsAny", "valueText", part) + fmt.Sprintf(" limit: %d", len(part))
		if err := b.get(ctx, b.classes.document, args, docFields, &recs); err != nil {
			return nil, fmt.Errorf("read documents: %w", err)
		}
		for i := range recs {
			out = append(out, recs[i].document())
		}
	}
	return out, nil
}

// DocumentByPath returns the document ingested from path (without text),
// or store.ErrNotFound.
func (b *Collection) DocumentByPath(ctx context.Context, path string) (*store.Document, error) {
	d, err := b.documentWhere(ctx, gqlWhere("sourcePath", "Equal", "valueText", path), docFields)
	if err != nil {
		return nil, fmt.Errorf("document at %q: %w", path, err)
	}
	return d, nil
}

// Documents lists every document without its text, sorted by id like the
// embedded store, paging through the collection with Weaviate's cursor.
func (b *Collection) Documents(ctx context.Context) ([]*store.Document, error) {
	const page = 500
	var out []*store.Document
	after := ""
	for {
		args := fmt.Sprintf("limit: %d", page)
		if after != "" {
			args += fmt.Sprintf(" after: %q", after)
		}
		var recs []docRecord
		if err := b.get(ctx, b.classes.document, args, docFields+" _additional { id }", &recs); err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		for i := range recs {
			out = append(out, recs[i].document())
		}
		if len(recs) < page {
			slices.SortFunc(out, func(a, b *store.Document) int { return strings.Compare(a.ID, b.ID) })
			return out, nil
		}
		after = recs[len(recs)-1].Additional.ID
	}
}

// Original returns a document's original file bytes, or store.ErrNotFound
// when the document or its original is missing.
func (b *Collection) Original(ctx context.Context, id string) ([]byte, error) {
	var o struct {
		Properties struct {
			Original []byte `json:"original"`
		} `json:"properties"`
	}
	path := "/v1/objects/" + b.classes.document + "/" + objectID("document", id)
	err := b.c.do(ctx, http.MethodGet, path, b.readLevel(), nil, &o)
	if isStatus(err, http.StatusNotFound) || (err == nil && o.Properties.Original == nil) {
		return nil, fmt.Errorf("original of %s: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("original of %s: %w", id, err)
	}
	return o.Properties.Original, nil
}

// Stats counts documents, passages (each has a vector) and pages, and sums
// the original files' sizes as FileBytes.
func (b *Collection) Stats(ctx context.Context) (store.Stats, error) {
	q := fmt.Sprintf("{ Aggregate { %s { meta { count } } %s { meta { count } pages { sum } size { sum } } } }",
		b.classes.passage, b.classes.document)
	var data struct {
		Aggregate map[string][]struct {
			Meta  struct{ Count int }   `json:"meta"`
			Pages struct{ Sum float64 } `json:"pages"`
			Size  struct{ Sum float64 } `json:"size"`
		} `json:"Aggregate"`
	}
	if err := b.c.graphql(ctx, q, &data); err != nil {
		return store.Stats{}, fmt.Errorf("stats: %w", err)
	}
	var s store.Stats
	if p := data.Aggregate[b.classes.passage]; len(p) > 0 {
		s.Chunks, s.Vectors = p[0].Meta.Count, p[0].Meta.Count
	}
	if d := data.Aggregate[b.classes.document]; len(d) > 0 {
		s.Documents, s.Pages, s.FileBytes = d[0].Meta.Count, int(d[0].Pages.Sum), int64(d[0].Size.Sum)
	}
	return s, nil
}
