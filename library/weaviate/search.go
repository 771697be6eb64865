package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/store"
)

// Hybrid fusion methods (Weaviate's names).
const (
	// FusionRanked is reciprocal rank fusion (k = 60).
	FusionRanked = "rankedFusion"
	// FusionRelative sums min-max normalised scores weighted by alpha.
	FusionRelative = "relativeScoreFusion"
)

// ErrEmptyQuery is returned by searches without text (Lexical, Hybrid) or
// without a vector (Nearest).
var ErrEmptyQuery = errors.New("empty query")

// Hit is one passage a search found. Score is higher for better matches:
// the BM25 score, the cosine similarity (1 - cosine distance), or the
// fused hybrid score.
type Hit struct {
	Chunk *store.Chunk
	Title string // the document's title
	Score float64
}

const passageFields = "text docId index seq start end pageStart pageEnd title headings _additional { score distance }"

// passageRecord is a passage object's properties as GraphQL returns them.
type passageRecord struct {
	Text       string   `json:"text"`
	DocID      string   `json:"docId"`
	Index      int      `json:"index"`
	Seq        string   `json:"seq"`
	Start      int      `json:"start"`
	End        int      `json:"end"`
	PageStart  int      `json:"pageStart"`
	PageEnd    int      `json:"pageEnd"`
	Title      string   `json:"title"`
	Headings   []string `json:"headings"`
	Additional struct {
		Score    json.RawMessage `json:"score"` // a string in GraphQL
		Distance *float64        `json:"distance"`
	} `json:"_additional"`
}

func (r *passageRecord) hit() Hit {
	h := Hit{Title: r.Title, Chunk: &store.Chunk{
		Seq: parseSeq(r.Seq), DocID: r.DocID, Index: r.Index, Text: r.Text,
		Start: r.Start, End: r.End, PageStart: r.PageStart, PageEnd: r.PageEnd,
	}}
	if len(r.Headings) > 0 { // the embedded store reads none as nil
		h.Chunk.Headings = r.Headings
	}
	if r.Additional.Distance != nil {
		h.Score = 1 - *r.Additional.Distance
	} else if s := strings.Trim(string(r.Additional.Score), `"`); s != "" && s != "null" {
		h.Score, _ = strconv.ParseFloat(s, 64)
	}
	return h
}

func (b *Collection) passages(ctx context.Context, args, fields string) ([]Hit, error) {
	var recs []passageRecord
	if err := b.get(ctx, b.classes.passage, args, fields, &recs); err != nil {
		return nil, err
	}
	return hitsOf(recs), nil
}

func hitsOf(recs []passageRecord) []Hit {
	hits := make([]Hit, len(recs))
	for i := range recs {
		hits[i] = recs[i].hit()
	}
	return hits
}

// rankFields are what Rank asks for: enough to name each passage.
const rankFields = "docId index seq _additional { score distance }"

// Lexical returns up to n passages ranked by Weaviate's BM25 on the passage
// text.
func (b *Collection) Lexical(ctx context.Context, text string, n int) ([]Hit, error) {
	return b.search(ctx, HybridQuery{Text: text, Limit: n}, passageFields)
}

// Nearest returns up to n passages nearest to vec by cosine distance.
func (b *Collection) Nearest(ctx context.Context, vec []float32, n int) ([]Hit, error) {
	if len(vec) == 0 {
		return nil, ErrEmptyQuery
	}
	return b.search(ctx, HybridQuery{Vector: vec, Limit: n}, passageFields)
}

// HybridQuery is one hybrid search: BM25 on Text and nearVector on Vector,
// fused by Weaviate in one request.
type HybridQuery struct {
	Text   string
	Vector []float32
	Limit  int
	// Alpha weighs the vector list against BM25: 0 is BM25 only, 1 vector
	// only. Callers with a vector weight w against BM25 weight 1 pass
	// w/(1+w).
	Alpha float64
	// Fusion is FusionRanked or FusionRelative (default).
	Fusion string
	// Docs, when not nil, keeps only passages of these documents (a
	// where filter on docId, which Weaviate applies while it searches:
	// its HNSW switches to a flat scan of the allowed passages below its
	// flatSearchCutoff). An empty, non-nil Docs finds nothing.
	Docs []string
}

// where is the GraphQL where argument of q ("" for none), with a leading
// space.
func (q *HybridQuery) where() string {
	if q.Docs == nil {
		return ""
	}
	ids, _ := json.Marshal(q.Docs)
	return fmt.Sprintf(` where: {path: ["docId"], operator: ContainsAny, valueText: %s}`, ids)
}

// Hybrid runs q in one Weaviate query.
func (b *Collection) Hybrid(ctx context.Context, q HybridQuery) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" || len(q.Vector) == 0 {
		return nil, ErrEmptyQuery
	}
	return b.search(ctx, q, passageFields)
}

// Rank runs the search of q — Lexical without a vector, Nearest without
// text, Hybrid with both — and returns hits whose Chunk holds only Seq,
// DocID and Index (no text, no title): Weaviate then reads and sends far
// less per hit, for callers that load the few passages they show with
// ChunksAndDocuments. The ranking and scores are those of the full search.
func (b *Collection) Rank(ctx context.Context, q HybridQuery) ([]Hit, error) {
	return b.search(ctx, q, rankFields)
}

// search runs q as BM25 (no vector), nearVector (no text) or hybrid.
func (b *Collection) search(ctx context.Context, q HybridQuery, fields string) ([]Hit, error) {
	text := strings.TrimSpace(q.Text) != ""
	switch {
	case !text && len(q.Vector) == 0:
		return nil, ErrEmptyQuery
	case q.Docs != nil && len(q.Docs) == 0:
		return []Hit{}, nil
	case !text:
		hits, err := b.passages(ctx, fmt.Sprintf("nearVector: {vector: %s} limit: %d%s", vectorLiteral(q.Vector), max(q.Limit, 1), q.where()), fields)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		return hits, nil
	case len(q.Vector) == 0:
		bq, prop := b.bm25Query(q.Text)
		if bq == "" {
			return []Hit{}, nil // only stopwords: nothing to rank, as in the embedded index
		}
		hits, err := b.passages(ctx, fmt.Sprintf(`bm25: {query: %s, properties: [%q]} limit: %d%s`, quote(bq), prop, max(q.Limit, 1), q.where()), fields)
		if err != nil {
			return nil, fmt.Errorf("lexical search: %w", err)
		}
		return hits, nil
	}
	return b.hybrid(ctx, q, fields)
}

func (b *Collection) hybrid(ctx context.Context, q HybridQuery, fields string) ([]Hit, error) {
	if q.Fusion == "" {
		q.Fusion = FusionRelative
	}
	if q.Fusion != FusionRanked && q.Fusion != FusionRelative {
		return nil, fmt.Errorf("hybrid search: unknown fusion %q", q.Fusion)
	}
	text, prop := b.bm25Query(q.Text)
	args := fmt.Sprintf(`hybrid: {query: %s, vector: %s, alpha: %s, fusionType: %s, properties: [%q]} limit: %d%s`,
		quote(text), vectorLiteral(q.Vector), strconv.FormatFloat(min(max(q.Alpha, 0), 1), 'f', -1, 64), q.Fusion, prop, max(q.Limit, 1), q.where())
	hits, err := b.passages(ctx, args, fields)
	if err != nil {
		return nil, fmt.Errorf("hybrid search: %w", err)
	}
	return hits, nil
}

// bm25Query returns the BM25 query text and the property it searches: the
// analyzed terms when Options.Analyzer is set, else the raw text.
func (b *Collection) bm25Query(text string) (query, property string) {
	if b.opts.Analyzer == nil {
		return text, "text"
	}
	return strings.Join(b.opts.Analyzer(text), " "), "terms"
}

// quote is a GraphQL string literal (JSON's escapes are GraphQL's).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func vectorLiteral(v []float32) string {
	var sb strings.Builder
	sb.Grow(12 * len(v))
	sb.WriteByte('[')
	for i, f := range v {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
	}
	sb.WriteByte(']')
	return sb.String()
}

// Passage returns the passage with public id "<document id>:<index>", or
// store.ErrNotFound.
func (b *Collection) Passage(ctx context.Context, id string) (*store.Chunk, error) {
	docID, index, ok := store.ParsePassageID(id)
	if !ok {
		return nil, fmt.Errorf("passage %q: %w", id, store.ErrNotFound)
	}
	hits, err := b.Chunks(ctx, []uint64{seqOf(docID, index)})
	if err != nil {
		return nil, fmt.Errorf("passage %s: %w", id, err)
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("passage %s: %w", id, store.ErrNotFound)
	}
	return hits[0], nil
}

// Chunks returns the passages with these sequence numbers, in the same
// order, skipping those that do not exist.
func (b *Collection) Chunks(ctx context.Context, seqs []uint64) ([]*store.Chunk, error) {
	cs, _, err := b.ChunksAndDocuments(ctx, seqs, nil)
	return cs, err
}

// ChunksAndDocuments returns the passages with these sequence numbers, in
// the same order, and the documents with these ids (without text, in no
// particular order), skipping those that do not exist: one GraphQL query
// per 100 of each.
func (b *Collection) ChunksAndDocuments(ctx context.Context, seqs []uint64, docIDs []string) ([]*store.Chunk, []*store.Document, error) {
	bySeq := make(map[uint64]*store.Chunk, len(seqs))
	var docs []*store.Document
	for start := 0; start < max(len(seqs), len(docIDs)); start += 100 {
		var parts []getPart
		var recs []passageRecord
		var drecs []docRecord
		if part := seqs[min(start, len(seqs)):min(start+100, len(seqs))]; len(part) > 0 {
			parts = append(parts, getPart{b.classes.passage, seqWhere(part), passageFields, &recs})
		}
		if part := docIDs[min(start, len(docIDs)):min(start+100, len(docIDs))]; len(part) > 0 {
			args := gqlWhere("docId", "ContainsAny", "valueText", part) + fmt.Sprintf(" limit: %d", len(part))
			parts = append(parts, getPart{b.classes.document, args, docFields, &drecs})
		}
		if err := b.getAll(ctx, parts...); err != nil {
			return nil, nil, fmt.Errorf("read passages: %w", err)
		}
		for _, h := range hitsOf(recs) {
			bySeq[h.Chunk.Seq] = h.Chunk
		}
		for i := range drecs {
			docs = append(docs, drecs[i].document())
		}
	}
	out := make([]*store.Chunk, 0, len(seqs))
	for _, s := range seqs {
		if c := bySeq[s]; c != nil {
			out = append(out, c)
		}
	}
	return out, docs, nil
}

// seqWhere selects the passages with these sequence numbers.
func seqWhere(seqs []uint64) string {
	return gqlWhere("seq", "ContainsAny", "valueText", seqTexts(seqs)) + fmt.Sprintf(" limit: %d", len(seqs))
}
