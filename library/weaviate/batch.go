package weaviate

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/mcpvec/mcpvec/store"
)

// seqOf is a passage's sequence number: 63 bits of its object id, the same
// in every process. It is never 0. Weaviate holds it as decimal text
// (seqText), since GraphQL's Int has 32 bits.
func seqOf(docID string, index int) uint64 {
	id := uuid.MustParse(objectID("passage", passageID(docID, index)))
	return binary.BigEndian.Uint64(id[:8])&(1<<63-1) | 1
}

func seqText(s uint64) string { return strconv.FormatUint(s, 10) }

func seqTexts(seqs []uint64) []string {
	out := make([]string, len(seqs))
	for i, s := range seqs {
		out[i] = seqText(s)
	}
	return out
}

// parseSeq returns 0 for text that is no sequence number.
func parseSeq(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

func parseSeqs(ss []string) []uint64 {
	out := make([]uint64, 0, len(ss))
	for _, s := range ss {
		if n, err := strconv.ParseUint(s, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func passageID(docID string, index int) string {
	c := store.Chunk{DocID: docID, Index: index}
	return c.ID()
}

// batchResult is one entry of POST /v1/batch/objects' answer.
type batchResult struct {
	ID     string `json:"id"`
	Result struct {
		Errors *struct {
			Error []struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"errors"`
	} `json:"result"`
}

// putObjects upserts objects in batches of Options.BatchSize. It returns the
// first failed object's error; objects before it are written.
func (b *Collection) putObjects(ctx context.Context, objs []object) error {
	for len(objs) > 0 {
		n := min(len(objs), b.opts.BatchSize)
		var res []batchResult
		err := b.c.do(ctx, http.MethodPost, "/v1/batch/objects", b.writeLevel(), map[string]any{"objects": objs[:n]}, &res)
		if err != nil {
			return fmt.Errorf("batch write: %w", err)
		}
		for _, r := range res {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				msgs := make([]string, len(r.Result.Errors.Error))
				for i, e := range r.Result.Errors.Error {
					msgs[i] = e.Message
				}
				return fmt.Errorf("batch write object %s: %s", r.ID, strings.Join(msgs, "; "))
			}
		}
		objs = objs[n:]
	}
	return nil
}

// where is a Weaviate filter, as JSON.
type where map[string]any

func equalText(path, v string) where {
	return where{"path": []string{path}, "operator": "Equal", "valueText": v}
}

func and(ws ...where) where { return where{"operator": "And", "operands": ws} }

// or is ws[0] alone or ws joined by Or.
func or(ws ...where) where {
	if len(ws) == 1 {
		return ws[0]
	}
	return where{"operator": "Or", "operands": ws}
}

// deleteWhere deletes every object of class matching w, in rounds of
// Weaviate's per-request limit (at most 1000 rounds).
func (b *Collection) deleteWhere(ctx context.Context, class string, w where) (int, error) {
	total := 0
	for range 1000 {
		var resp struct {
			Results struct {
				Matches    int `json:"matches"`
				Limit      int `json:"limit"`
				Failed     int `json:"failed"`
				Successful int `json:"successful"`
			} `json:"results"`
		}
		body := map[string]any{"match": map[string]any{"class": class, "where": w}, "output": "minimal"}
		if err := b.c.do(ctx, http.MethodDelete, "/v1/batch/objects", b.writeLevel(), body, &resp); err != nil {
			return total, fmt.Errorf("batch delete from %s: %w", class, err)
		}
		r := resp.Results
		total += r.Successful
		if r.Failed > 0 {
			return total, fmt.Errorf("batch delete from %s: %d objects failed", class, r.Failed)
		}
		if r.Matches == 0 || r.Limit == 0 || r.Matches < r.Limit {
			return total, nil
		}
	}
	return total, fmt.Errorf("batch delete from %s: still matching after 1000 rounds", class)
}
