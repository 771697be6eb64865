package weaviate

import (
	"context"
	"fmt"
	"strings"
)

// Check verifies that every document's passages are all present and that
// no passage lacks its document (what an interrupted PutDocument or
// DeleteDocument leaves; repeating it repairs). It returns nil when
// consistent, an error describing what is wrong, or an error reading (which
// wraps the cause). It reads every document and its passages.
func (b *Collection) Check(ctx context.Context) error {
	docs, err := b.Documents(ctx)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	var incomplete []string
	found := 0
	for _, d := range docs {
		cs, err := b.Chunks(ctx, d.Chunks)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		found += len(cs)
		if len(cs) != len(d.Chunks) {
			incomplete = append(incomplete, fmt.Sprintf("%s (%d of %d passages)", d.ID, len(cs), len(d.Chunks)))
		}
	}
	st, err := b.Stats(ctx)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	var problems []string
	if len(incomplete) > 0 {
		problems = append(problems, "documents missing passages: "+strings.Join(incomplete, ", "))
	}
	if orphans := st.Chunks - found; orphans > 0 {
		problems = append(problems, fmt.Sprintf("%d passages belong to no document (an interrupted ingest or rm; repeat it)", orphans))
	}
	if len(problems) > 0 {
		return fmt.Errorf("collection %s: %s", b.name, strings.Join(problems, "; "))
	}
	return nil
}
