package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/rerank"
	"github.com/mcpvec/mcpvec/store"
)

// rerankSetting names the library setting that records the reranker
// `serve` last ran with. The record is informational: a library without
// one (every library before it existed) opens as before, and a search is
// reranked only when --rerank or $MCPVEC_RERANK names a service.
const rerankSetting = "reranker"

// rerankRecord is what the library keeps of a reranker: never the API key,
// and the URL without user, password or query (rerank.Redact).
type rerankRecord struct {
	URL    string    `json:"url"`
	Model  string    `json:"model,omitempty"`
	Format string    `json:"format"`
	Since  time.Time `json:"since"` // when serve first ran with it
}

func (r rerankRecord) String() string {
	model := r.Model
	if model == "" {
		model = "(the service's default model)"
	}
	return fmt.Sprintf("%s %s at %s", r.Format, model, r.URL)
}

// same reports whether r and o name the same reranker.
func (r rerankRecord) same(o rerankRecord) bool {
	return r.URL == o.URL && r.Model == o.Model && r.Format == o.Format
}

// recordOf returns the record of the rerank stage o, false when it has no
// HTTP reranker.
func recordOf(o library.RerankOptions) (rerankRecord, bool) {
	c, ok := o.Reranker.(*rerank.Client)
	if !ok || c == nil {
		return rerankRecord{}, false
	}
	format := c.Format
	if format == "" {
		format, _ = rerank.FormatOf(c.URL)
	}
	return rerankRecord{URL: rerank.Redact(c.URL), Model: c.Model, Format: format,
		Since: time.Now().UTC().Truncate(time.Second)}, true
}

// readRerankRecord returns the recorded reranker, nil when there is none.
// Errors: the store's, or a record that does not decode.
func readRerankRecord(ctx context.Context, docs docStore) (*rerankRecord, error) {
	v, err := docs.getSetting(ctx, rerankSetting)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r rerankRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return nil, fmt.Errorf("reranker record: %w", err)
	}
	return &r, nil
}

// writeRerankRecord records rec unless the library already holds the same
// reranker (whose Since is kept).
func writeRerankRecord(ctx context.Context, docs docStore, rec rerankRecord) error {
	old, err := readRerankRecord(ctx, docs)
	if err == nil && old != nil && old.same(rec) {
		return nil
	}
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return docs.putSetting(ctx, rerankSetting, raw)
}

// announceRerank says on stderr, at serve's start, what the rerank stage
// is: on, by what, with its top N and deadline (and records that reranker
// in the library unless it is served read-only); or off, naming the
// reranker the library last ran with, if any.
func announceRerank(ctx context.Context, e *env, docs docStore, lib *library.Library, o library.RerankOptions, readOnly bool) {
	name, on := lib.RerankOn()
	if name == "" {
		if rec, err := readRerankRecord(ctx, docs); err == nil && rec != nil {
			fmt.Fprintf(e.stderr, "rerank: off (this library was last served with %s; --rerank URL turns it on)\n", rec)
		}
		return
	}
	fmt.Fprintf(e.stderr, "rerank: on, the best %d results by %s, within %v a search\n", on.TopN, name, on.Timeout)
	if rec, ok := recordOf(o); ok && !readOnly {
		if err := writeRerankRecord(ctx, docs, rec); err != nil {
			fmt.Fprintf(e.stderr, "rerank: the library could not record the reranker: %v\n", err)
		}
	}
}

// rerankInfo is info's reranker line: the recorded reranker or "none".
func rerankInfo(ctx context.Context, docs docStore) (line string, rec *rerankRecord) {
	rec, err := readRerankRecord(ctx, docs)
	switch {
	case err != nil:
		return fmt.Sprintf("unknown (%v)", err), nil
	case rec == nil:
		return "none", nil
	}
	return fmt.Sprintf("%s (last served with it; used only when --rerank or $MCPVEC_RERANK names it)", rec), rec
}
