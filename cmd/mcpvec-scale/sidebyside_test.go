package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
)

// TestSideBySideSmoke compares ~1,000 passages in the embedded library and
// one Weaviate node (skipped without weaviate-server)
// and checks that every figure was measured and no search failed; -short
// skips it.
func TestSideBySideSmoke(t *testing.T) {
	c := smokeConfig(t, "-setups", "0,1", "-weaviate-ingest", "500", "-requests", "100", "-settle", "6s")
	weaviatetest.SkipUnlessInstalled(t)
	rows, err := sideBySide(context.Background(), c, testOutput{t})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].passages < 800 || rows[1].passages != rows[0].passages || rows[1].fill != "migrate --to" ||
		rows[1].ingestN <= 0 || rows[1].ingestRate <= 0 || rows[1].fillRate <= 0 {
		t.Fatalf("rows %+v", rows)
	}
	for _, r := range rows {
		for i, l := range r.load {
			if l.Errors != 0 || l.Requests != 100 || l.P50ms <= 0 || r.cpuMs[i] <= 0 {
				t.Errorf("%d nodes: load %+v, CPU %v ms/search", r.nodes, l, r.cpuMs[i])
			}
		}
	}
	var md bytes.Buffer
	sideMarkdown(c, rows, &md)
	if !strings.Contains(md.String(), "| Weaviate, 1 node |") {
		t.Errorf("report has no Weaviate row:\n%s", md.String())
	}
}
