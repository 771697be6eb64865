package embed

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/golden"
)

// TestHashVectorsGolden pins the default offline embedder's passage and
// query vectors, bit for bit (a SHA-256 of their float32 bits per text), on
// the multilingual samples package analysis keeps. Libraries store these
// vectors, so a change needs a new model name (NewHash); then rewrite the
// file with go test -run TestHashVectorsGolden -update.
func TestHashVectorsGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "analysis", "testdata", "cl100k_samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	h := NewHash(HashConfig{})
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s struct{ ID, Text string }
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		vs, err := h.Embed(context.Background(), []string{s.Text})
		if err != nil {
			t.Fatal(err)
		}
		q, err := h.EmbedQuery(context.Background(), s.Text)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.New()
		for _, v := range append(vs[0], q...) {
			_ = binary.Write(sum, binary.LittleEndian, math.Float32bits(v))
		}
		fmt.Fprintf(&b, "%s %x\n", s.ID, sum.Sum(nil))
	}
	golden.Compare(t, filepath.Join("testdata", "hash_vectors.golden"), []byte(b.String()))
}
