package library_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/server/library"
	"github.com/mcpvec/mcpvec/store"
)

// TestReopenRebuildsDamagedLexicalSegment: with enough passages the BM25
// index is saved as a segment; when its chunks are cut short the library
// still opens, says so in the log, rebuilds the index from the stored
// passages and saves a sound one.
func TestReopenRebuildsDamagedLexicalSegment(t *testing.T) {
	f := newFixture(t, library.Options{})
	pages := make([]string, 1500)
	for i := range pages {
		pages[i] = fmt.Sprintf("Passage %d about harbour number h%dx and lighthouse l%dy.", i, i, i%37)
	}
	f.add(t, "big", "big.txt", "text/plain", "", pages...)
	if err := f.lib.Save(); err != nil {
		t.Fatal(err)
	}
	cut := 0
	err := f.db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(library.AuxLexical)
		if err != nil {
			return err
		}
		chunks := map[string][]byte{}
		kv.ForEach(func(k, v []byte) error {
			if bytes.HasPrefix(k, []byte("\x00lexical-segc")) {
				chunks[string(k)] = bytes.Clone(v[:len(v)/2])
			}
			return nil
		})
		for k, v := range chunks {
			if err := kv.Put([]byte(k), v); err != nil {
				return err
			}
			cut++
		}
		return nil
	})
	if err != nil || cut == 0 {
		t.Fatalf("cutting the segment short: %v, %d chunks", err, cut)
	}
	for round, wantWarn := range []bool{true, false} {
		var log bytes.Buffer
		opts := library.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}
		lib, err := library.Open(context.Background(), f.db, wordEmbedder, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(log.String(), "lexical index rebuilt from the store"); got != wantWarn {
			t.Errorf("open %d: rebuild logged %v, want %v; log:\n%s", round, got, wantWarn, log.String())
		}
		if st := lib.IndexStats(); st.LexicalPassages != len(pages) {
			t.Errorf("open %d: %d passages in the lexical index, want %d", round, st.LexicalPassages, len(pages))
		}
		resp, err := lib.Search(context.Background(), "h1234x", library.SearchOptions{Mode: library.Lexical})
		if err != nil || len(resp.Results) != 1 || resp.Results[0].ID != "big:1234" {
			t.Fatalf("open %d: search = %+v, %v", round, resp, err)
		}
	}
}
