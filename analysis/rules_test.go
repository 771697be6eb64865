package analysis

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/golden"
)

// readSamples reads testdata/cl100k_samples.jsonl: prose in several
// scripts, Go code, shell flags, tables and symbols.
func readSamples(tb testing.TB) []sample {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cl100k_samples.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []sample
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s sample
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// TestRulesGolden pins what every rule makes of the samples: the token
// estimate, Tokenize's terms and Words' words with their Stem. The golden
// file was written by the rules' earlier homes (index/lexical,
// ingest/embed's hash words, ingest/chunk) before they moved here, so the
// move changed no BM25 term, hash feature or token count. A deliberate
// change to a rule rewrites it with go test -run TestRulesGolden -update
// (and needs a new TokenizerVersion or hash model name, see doc.go).
func TestRulesGolden(t *testing.T) {
	var b strings.Builder
	for _, s := range readSamples(t) {
		fmt.Fprintf(&b, "== %s\ntokens %d\nterms %q\n", s.ID, EstimateTokens(s.Text), Tokenize(s.Text))
		var ws []string
		for _, w := range Words(s.Text) {
			ws = append(ws, w+"/"+Stem(w))
		}
		fmt.Fprintf(&b, "words %q\n", ws)
	}
	golden.Compare(t, filepath.Join("testdata", "rules.golden"), []byte(b.String()))
}
