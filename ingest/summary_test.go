package ingest_test

import (
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
)

// TestSummaryString: the summary line counts in the singular when there is
// one ("ingested 1 document (1 page, 1 passage)"), not "1 documents".
func TestSummaryString(t *testing.T) {
	for _, c := range []struct {
		sum  ingest.Summary
		want string
	}{
		{ingest.Summary{Ingested: 1, Pages: 1, Chunks: 1, Duplicates: 1, Elapsed: time.Second},
			"ingested 1 document (1 page, 1 passage); 0 unchanged, 1 duplicate, 0 skipped, 0 failed in 1s"},
		{ingest.Summary{Ingested: 2, Pages: 7, Chunks: 12, Unchanged: 3, Elapsed: 1500 * time.Millisecond},
			"ingested 2 documents (7 pages, 12 passages); 3 unchanged, 0 duplicates, 0 skipped, 0 failed in 1.5s"},
		{ingest.Summary{}, "ingested 0 documents (0 pages, 0 passages); 0 unchanged, 0 duplicates, 0 skipped, 0 failed in 0s"},
	} {
		if got := c.sum.String(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
