package rerank

import (
	"encoding/json"
	"fmt"
)

// The request bodies, their fields in the order each provider documents
// them, so that a request is the same bytes every time.
type (
	cohereRequest struct {
		Model     string   `json:"model,omitempty"`
		Query     string   `json:"query"`
		TopN      int      `json:"top_n"`
		Documents []string `json:"documents"`
	}
	// teiRequest asks TEI to truncate texts past the model's limit
	// itself: its default is to refuse them (413), and mcpvec's token
	// estimate is not the model's tokenizer.
	teiRequest struct {
		Query    string   `json:"query"`
		Texts    []string `json:"texts"`
		Truncate bool     `json:"truncate"`
	}
	voyageRequest struct {
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		Model     string   `json:"model"`
		TopK      int      `json:"top_k"`
	}
	// scored is one answer entry; Score is TEI's name, Relevance the others'.
	scored struct {
		Index     *int     `json:"index"`
		Relevance *float64 `json:"relevance_score"`
		Score     *float64 `json:"score"`
	}
)

// requestBody encodes the request of format f, asking for every document
// back (top_n / top_k = len(docs)) so that each gets a score.
func requestBody(f, model, query string, docs []string) ([]byte, error) {
	var v any
	switch f {
	case Cohere, Jina:
		v = cohereRequest{Model: model, Query: query, TopN: len(docs), Documents: docs}
	case TEI:
		v = teiRequest{Query: query, Texts: docs, Truncate: true}
	case Voyage:
		v = voyageRequest{Query: query, Documents: docs, Model: model, TopK: len(docs)}
	default:
		return nil, fmt.Errorf("rerank: unknown format %q (cohere, jina, tei or voyage)", f)
	}
	return json.Marshal(v)
}

// parseScores decodes the answer of format f to n documents into one score
// per document, in their order. Every document must be scored exactly once.
func parseScores(f string, raw []byte, n int) ([]float64, error) {
	var list []scored
	var err error
	switch f {
	case TEI:
		err = json.Unmarshal(raw, &list)
	case Voyage:
		var a struct{ Data []scored }
		err, list = json.Unmarshal(raw, &a), a.Data
	default:
		var a struct{ Results []scored }
		err, list = json.Unmarshal(raw, &a), a.Results
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if len(list) != n {
		return nil, fmt.Errorf("%w: %d scores for %d documents", ErrMalformed, len(list), n)
	}
	scores, seen := make([]float64, n), make([]bool, n)
	for _, s := range list {
		score := s.Relevance
		if f == TEI {
			score = s.Score
		}
		if s.Index == nil || score == nil || *s.Index < 0 || *s.Index >= n || seen[*s.Index] {
			return nil, fmt.Errorf("%w: an entry without a new index in range and a score", ErrMalformed)
		}
		seen[*s.Index], scores[*s.Index] = true, *score
	}
	return scores, nil
}
