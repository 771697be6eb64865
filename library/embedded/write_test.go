package embedded_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// TestWritesPutIndexesWhatItIsHanded: the write door (Writes.Put, what
// ingest calls) has the embedded backend index the passages and vectors
// it was handed, replacing an earlier version, without reading back from
// the store what it has just written there; a write made to the store
// directly (Library.Apply) is still read back.
func TestWritesPutIndexesWhatItIsHanded(t *testing.T) {
	f := newFixture(t, library.Options{})
	readBacks := embedded.CountReadBacks()
	ctx := context.Background()
	w := f.Lib.BeginWrites(ctx, wordEmbedder, embed.Identity{Provider: "test"}, 0, 0, 0)
	for i, text := range []string{"Tugboats nudge tankers into the harbour.", "Ferries cross the strait at dawn."} {
		d := &store.Document{ID: "boats", Title: "boats.txt", SourcePath: "/docs/boats.txt", MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: text}
		chunks := []store.Chunk{{Text: text, End: len(text), PageStart: 1, PageEnd: 1}}
		res, err := w.Put(ctx, d, chunks, [][]float32{wordEmbedder.Vector(text)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(res.Removed), i; got != want {
			t.Fatalf("put %d removed %d passages, want %d", i, got, want)
		}
	}
	if n := readBacks(); n != 0 {
		t.Fatalf("Writes.Put read its passages back from the store %d times", n)
	}
	if got, err := w.DocumentByPath(ctx, "/docs/boats.txt"); err != nil || got.ID != "boats" {
		t.Fatalf("DocumentByPath = %+v, %v", got, err)
	}
	for _, mode := range []library.Mode{library.Lexical, library.Vector} {
		resp, err := f.Lib.Search(ctx, "ferries strait", library.SearchOptions{K: 5, Mode: mode})
		if err != nil || len(resp.Results) != 1 || resp.Results[0].ID != "boats:0" {
			t.Fatalf("%s search = %+v, %v", mode, resp, err)
		}
	}
	if st := f.Lib.IndexStats(ctx); st.LexicalPassages != 1 || st.VectorPassages != 1 {
		t.Fatalf("index stats %+v, want one passage in each", st)
	}
	if err := w.Finish(ctx, true); err != nil {
		t.Fatal(err)
	}
	readBacks = embedded.CountReadBacks()
	f.Add(t, "direct", "direct.txt", "text/plain", "", "Written to the store, then applied.")
	if n := readBacks(); n == 0 {
		t.Fatal("a direct store write was indexed without reading it back: is the counter wired?")
	}
}

// BenchmarkWritesPut stores documents of 20 passages (~250 tokens each,
// offline-embedder vectors; the store without fsync) one per op, as
// ingest's door does now (handed: the backend indexes what it is handed)
// and as it did before (readBack: PutDocument, then Library.Apply reads
// the passages and vectors back from the store to index them), into the
// offline embedder's Scan index and into an HNSW graph.
func BenchmarkWritesPut(b *testing.B) {
	emb := embed.NewHash(embed.DefaultHashConfig())
	r := rand.New(rand.NewPCG(5, 6))
	const docs, perDoc = 64, 20
	texts := make([][]string, docs)
	vecs := make([][][]float32, docs)
	for d := range texts {
		for range perDoc {
			texts[d] = append(texts[d], putBenchText(r, 180))
		}
		vecs[d], _ = emb.Embed(context.Background(), texts[d])
	}
	for _, index := range []string{"scan", "graph"} {
		for _, way := range []string{"handed", "readBack"} {
			b.Run(index+"/"+way, func(b *testing.B) {
				db := storetest.MustOpen(b, &store.Options{NoSync: true})
				db.SetEmbedder(store.EmbedderInfo(emb.Identity()))
				opts := library.OptionsFor(embed.TraitsOf(emb.Identity()))
				opts.Index.Scan = index == "scan"
				lib, err := embedded.Open(context.Background(), db, emb, opts)
				if err != nil {
					b.Fatal(err)
				}
				w := lib.BeginWrites(context.Background(), emb, emb.Identity(), 0, 0, 0)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					d := i % docs
					doc, chunks := benchDoc(texts[d], d)
					if err := putOnce(lib, db, w, way, doc, chunks, vecs[d]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// benchDoc is document d of texts, one passage per text.
func benchDoc(texts []string, d int) (*store.Document, []store.Chunk) {
	chunks := make([]store.Chunk, len(texts))
	for i, t := range texts {
		chunks[i] = store.Chunk{Text: t, End: len(t), PageStart: 1, PageEnd: 1}
	}
	doc := &store.Document{ID: fmt.Sprintf("doc%03d", d), Title: "bench", SourcePath: fmt.Sprintf("/bench/%d.txt", d),
		MediaType: "text/plain", Pages: 1, PageStarts: []int{0}, Text: strings.Join(texts, " ")}
	return doc, chunks
}

// putOnce stores doc the way named: through the write door, or directly
// to the store and then applied.
func putOnce(lib *library.Library, db *store.DB, w *library.Writes, way string, doc *store.Document, chunks []store.Chunk, vecs [][]float32) error {
	if way == "handed" {
		_, err := w.Put(context.Background(), doc, chunks, vecs, nil)
		return err
	}
	res, err := db.PutDocument(doc, chunks, vecs, nil)
	if err != nil {
		return err
	}
	return lib.Apply(context.Background(), res)
}

// putBenchText is words words drawn from a small vocabulary, skewed to its
// start as real text is.
func putBenchText(r *rand.Rand, words int) string {
	vocab := strings.Fields("harbour tide lantern ledger keeper ferry strait dawn cargo hull mast rope " +
		"gull reef chart compass beacon anchor current shoal dock crane pier berth quay swell")
	out := make([]string, words)
	for i := range out {
		x := r.Float64()
		out[i] = vocab[int(float64(len(vocab))*x*x)]
	}
	return strings.Join(out, " ")
}
