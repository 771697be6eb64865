package library_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
)

// TestResultsLentMatchCopied: the results made of passages lent by the
// store are those made of copies (as from a backend that cannot lend), and
// both choose what the reference does: passages in hit order, none that
// overlaps a chosen one of its document by more than half of the shorter
// or repeats a chosen one's text, at most k. The passages are long (their
// snippets cut, with "…") and short (whole), with headings and without,
// of a PDF and of text files, overlapping, repeated in two documents, and
// one ranked passage is missing.
func TestResultsLentMatchCopied(t *testing.T) {
	f := newFixture(t, library.Options{SnippetChars: 60})
	long := "Keepers trimmed the wicks at dusk. The lamps burned whale oil all night. " +
		"Storms broke the glass twice. A keeper's log lists every ship that passed the rock."
	f.Put(t, "lh", "lh.pdf", "application/pdf", "https://example.org/lh.pdf",
		[][]string{{"Lighthouses", "Keepers"}, nil, {"Ships"}},
		[]string{long, "Lamps and wicks. Short page.", "Ships passed the rock at night."})
	f.Put(t, "copy", "copy.md", "text/markdown", "", [][]string{nil, {"Copy"}},
		[]string{"Lamps and wicks. Short page.", long})
	f.putOverlapping(t, "ov")
	var seqs []uint64
	for _, id := range []string{"lh", "copy", "ov"} {
		d, err := f.DB.Document(id)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, d.Chunks...)
	}
	seqs = append(seqs, slices.Max(seqs)+1) // ranked, then deleted
	queries := []string{"keepers wicks", "ships rock night", "lamps whale oil", "storms glass log"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 400 {
		perm := r.Perm(len(seqs))[:1+r.IntN(len(seqs))]
		hits := make([]library.Hit, len(perm))
		for i, p := range perm {
			hits[i] = library.Hit{Seq: seqs[p], Score: float64(len(perm) - i)}
		}
		k, q := 1+r.IntN(len(hits)), queries[r.IntN(len(queries))]
		lent, err := library.Results(f.Lib, q, hits, k, true)
		if err != nil {
			t.Fatal(err)
		}
		copied, err := library.Results(f.Lib, q, hits, k, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(lent, copied) {
			t.Fatalf("%q, k %d, hits %v: lent\n%+v\ncopied\n%+v", q, k, hits, lent.Results, copied.Results)
		}
		var ids []string
		for _, x := range lent.Results {
			ids = append(ids, x.ID)
		}
		if want := refChosen(t, f.DB, hits, k); !slices.Equal(ids, want) {
			t.Fatalf("%q, k %d, hits %v: chose %q, the reference %q", q, k, hits, ids, want)
		}
	}
}

// refChosen is the ids of the passages results chooses of hits, worked
// out on copies read one at a time.
func refChosen(t *testing.T, db *store.DB, hits []library.Hit, k int) []string {
	var chosen []*store.Chunk
	var ids []string
	for _, h := range hits {
		cs, err := db.Chunks([]uint64{h.Seq})
		if err != nil || len(chosen) == k {
			continue
		}
		c, dup := cs[0], false
		for _, o := range chosen {
			ov := min(o.End, c.End) - max(o.Start, c.Start)
			dup = dup || o.Text == c.Text || o.DocID == c.DocID && ov > 0 && 2*ov > min(o.End-o.Start, c.End-c.Start)
		}
		if !dup {
			chosen, ids = append(chosen, c), append(ids, c.ID())
		}
	}
	return ids
}
