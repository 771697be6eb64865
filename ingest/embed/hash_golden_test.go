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
	compareVectors(t, NewHash(HashConfig{}), "hash_vectors.golden")
}

// TestHashV2VectorsGolden: a library built with hash-v2, before unspaced
// scripts were cut into bigrams, is opened with hash-v2 and gets the
// vectors it was built with (the file is hash_vectors.golden as hash-v2
// wrote it).
func TestHashV2VectorsGolden(t *testing.T) {
	v2 := newHash(HashConfig{}, 2)
	e, err := openHash(context.Background(), Identity{Provider: HashProvider, Model: v2.model}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	compareVectors(t, e.(*Hash), "hash_vectors_v2.golden")
}

func compareVectors(t *testing.T, h *Hash, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "analysis", "testdata", "cl100k_samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
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
	golden.Compare(t, filepath.Join("testdata", file), []byte(b.String()))
}
