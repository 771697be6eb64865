package embedded_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
)

var vecWords = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")

// vectorIDs searches in vector mode and returns the passage ids in order.
func vectorIDs(t *testing.T, lib *library.Library) [][]string {
	t.Helper()
	var out [][]string
	for i := range 20 {
		q := vecWords[i] + " " + vecWords[(i*7+3)%len(vecWords)]
		resp, err := lib.Search(context.Background(), q, library.SearchOptions{K: 10, Mode: library.Vector})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range resp.Results {
			ids = append(ids, r.ID)
		}
		out = append(out, ids)
	}
	return out
}

func reopen(t *testing.T, db *store.DB, opts library.Options) (*library.Library, string) {
	t.Helper()
	var log bytes.Buffer
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	lib, err := embedded.Open(context.Background(), db, wordEmbedder, opts)
	if err != nil {
		t.Fatal(err)
	}
	return lib, log.String()
}

// The vector index re-scores from the store and loads its persisted int8
// codes: a clean reopen reads no vector, a graph of the older format (no
// codes) is upgraded once, and passages written or removed without an index
// save (a crash) are reconciled; vector results never change.
func TestVectorIndexReopen(t *testing.T) {
	opts := library.Options{Index: vector.Config{ExactBelow: -1}} // always the graph
	f := newFixture(t, opts)
	for d := range 30 {
		var pages []string
		for p := range 10 {
			pages = append(pages, fmt.Sprintf("%s %s %s", vecWords[(d+p)%20], vecWords[(d*3+p)%20], vecWords[(p*p+d)%20]))
		}
		f.Add(t, fmt.Sprintf("d%02d", d), "doc", "text/plain", "", pages...)
	}
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := vectorIDs(t, f.Lib)

	lib, log := reopen(t, f.DB, opts)
	if log != "" {
		t.Errorf("clean reopen logged:\n%s", log)
	}
	if got := vectorIDs(t, lib); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("results after reopen differ:\n%v\n%v", got, want)
	}

	toFormat1(t, f.DB)
	lib, log = reopen(t, f.DB, opts)
	if !strings.Contains(log, "codes read") || !strings.Contains(log, "read=300") {
		t.Errorf("format-1 graph: log %q, want the codes read from 300 vectors", log)
	}
	if got := vectorIDs(t, lib); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("results after the upgrade differ:\n%v\n%v", got, want)
	}
	if _, log = reopen(t, f.DB, opts); log != "" {
		t.Errorf("reopen after the upgrade logged:\n%s", log)
	}

	// A crash after store writes, before the index was saved.
	if _, err := f.DB.DeleteDocument("d00"); err != nil {
		t.Fatal(err)
	}
	d, c, v := vecDoc("late", "zulu zulu zulu")
	if _, err := f.DB.PutDocument(d, c, v, nil); err != nil {
		t.Fatal(err)
	}
	lib, log = reopen(t, f.DB, opts)
	if !strings.Contains(log, "inserted=1 removed=10") {
		t.Errorf("reconcile: log %q", log)
	}
	resp, err := lib.Search(context.Background(), "zulu", library.SearchOptions{K: 3, Mode: library.Vector})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].ID != "late:0" {
		t.Fatalf("passage written before the crash: %+v, %v", resp, err)
	}
	if h, err := lib.Check(context.Background()); err != nil || !h.Consistent || h.Index.VectorPassages != 291 {
		t.Fatalf("check after reconcile: %+v, %v", h, err)
	}
}

func vecDoc(id, text string) (*store.Document, []store.Chunk, [][]float32) {
	d := &store.Document{ID: id, Title: id, SourcePath: "/docs/" + id, MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: text}
	return d, []store.Chunk{{Text: text, End: len(text), PageStart: 1, PageEnd: 1}}, [][]float32{wordEmbedder.Vector(text)}
}

// toFormat1 rewrites the persisted graph as format 1 wrote it: no codes
// records, header version 1.
func toFormat1(t *testing.T, db *store.DB) {
	t.Helper()
	err := db.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxVectors)
		if err != nil {
			return err
		}
		var codes [][]byte
		kv.ForEach(func(k, _ []byte) error {
			if len(k) == 9 && k[0] == 'c' {
				codes = append(codes, bytes.Clone(k))
			}
			return nil
		})
		if len(codes) != 300 {
			return fmt.Errorf("%d codes records, want 300", len(codes))
		}
		for _, k := range codes {
			if err := kv.Delete(k); err != nil {
				return err
			}
		}
		h := bytes.Clone(kv.Get([]byte("h")))
		binary.LittleEndian.PutUint16(h[4:], 1)
		binary.LittleEndian.PutUint32(h[len(h)-4:], crc32.Checksum(h[:len(h)-4], crc32.MakeTable(crc32.Castagnoli)))
		return kv.Put([]byte("h"), h)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReopenRebuildsDamagedLexicalSegment: with enough passages the BM25
// index is saved as a segment; when its chunks are cut short the library
// still opens, says so in the log, rebuilds the index from the stored
// passages and saves a sound one. An open that cannot save it (read-only)
// says so in its index counts (LexicalRebuilt), which `mcpvec check`
// reports.
func TestReopenRebuildsDamagedLexicalSegment(t *testing.T) {
	f := newFixture(t, library.Options{})
	pages := harbourPages(1500)
	f.Add(t, "big", "big.txt", "text/plain", "", pages...)
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	if cut := embeddedtest.CutLexicalSegment(t, f.DB); cut == 0 {
		t.Fatal("no BM25 segment to cut short")
	}
	restore := embedded.FailIndexSaves(store.ErrReadOnly) // as a read-only open: rebuilt, not saved
	lib, _ := reopen(t, f.DB, library.Options{})
	restore()
	if got := lib.IndexStats(context.Background()).LexicalRebuilt; !strings.Contains(got, "lexical segment unusable") {
		t.Errorf("an open that could not save the rebuilt index says LexicalRebuilt %q", got)
	}
	for round, wantWarn := range []bool{true, false} {
		lib, log := reopen(t, f.DB, library.Options{})
		if got := lib.IndexStats(context.Background()).LexicalRebuilt; got != "" {
			t.Errorf("open %d: LexicalRebuilt %q after an open that saved", round, got)
		}
		if got := strings.Contains(log, "lexical index rebuilt from the store"); got != wantWarn {
			t.Errorf("open %d: rebuild logged %v, want %v; log:\n%s", round, got, wantWarn, log)
		}
		if st := lib.IndexStats(context.Background()); st.LexicalPassages != len(pages) {
			t.Errorf("open %d: %d passages in the lexical index, want %d", round, st.LexicalPassages, len(pages))
		}
		resp, err := lib.Search(context.Background(), "h1234x", library.SearchOptions{Mode: library.Lexical})
		if err != nil || len(resp.Results) != 1 || resp.Results[0].ID != "big:1234" {
			t.Fatalf("open %d: search = %+v, %v", round, resp, err)
		}
	}
}
