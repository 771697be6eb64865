package lexical

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// tinyCorpus is small enough to reason about scores by hand.
var tinyCorpus = map[uint64]string{
	1: "Cats are attached to their homes and rarely wander far.",
	2: "Dogs are attached to their owners.",
	3: "The home of the domestic cat: a study of feline territory. Cats cats cats.",
	4: "Call BZ2_bzDecompressInit before BZ2_bzDecompress.",
	5: "Run valgrind with --leak-check=full to see every leak.",
}

func newTiny(t *testing.T) *Index {
	t.Helper()
	ix := New(DefaultConfig())
	for id, text := range tinyCorpus {
		ix.Add(id, text)
	}
	return ix
}

func TestSearchRanking(t *testing.T) {
	ix := newTiny(t)
	tests := []struct {
		query string
		first uint64
		only  bool // no other passage may match
	}{
		{"are cats attached to their homes", 1, false},
		{"feline territory", 3, true},
		{"bzDecompressInit", 4, true},
		{"BZ2_bzDecompressInit", 4, true},
		{"--leak-check=full", 5, true},
		{"dog owners", 2, true},
	}
	for _, tc := range tests {
		got := ix.Search(tc.query, 10)
		if len(got) == 0 || got[0].ID != tc.first {
			t.Errorf("Search(%q) = %v, want %d first", tc.query, got, tc.first)
			continue
		}
		if tc.only && len(got) != 1 {
			t.Errorf("Search(%q) = %v, want only %d", tc.query, indextest.IDs(got), tc.first)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Score > got[i-1].Score {
				t.Errorf("Search(%q) not sorted: %v", tc.query, got)
			}
		}
	}
}

func TestSearchScoreMatchesFormula(t *testing.T) {
	ix := New(Config{K1: 1.2, B: 0.75})
	ix.Add(1, "apple banana")
	ix.Add(2, "apple apple cherry date")
	ix.Add(3, "elderberry")
	got := ix.Search("cherry", 1)
	// df=1, N=3, |d2|=4, avgdl=7/3, tf=1.
	idf := math.Log(1 + (3-1+0.5)/(1+0.5))
	want := idf * 1 * 2.2 / (1 + 1.2*(1-0.75+0.75*4/(7.0/3)))
	if len(got) != 1 || got[0].ID != 2 || math.Abs(float64(got[0].Score)-want) > 1e-5 {
		t.Fatalf("Search(cherry) = %v, want id 2 score %.6f", got, want)
	}
}

func TestSearchEdges(t *testing.T) {
	ix := newTiny(t)
	if got := ix.Search("cats", 0); got != nil {
		t.Errorf("k=0: got %v", got)
	}
	if got := ix.Search("the and of", 5); got != nil {
		t.Errorf("stopwords only: got %v", got)
	}
	if got := ix.Search("zzzunknown", 5); got != nil {
		t.Errorf("unknown term: got %v", got)
	}
	if got := New(DefaultConfig()).Search("cats", 5); got != nil {
		t.Errorf("empty index: got %v", got)
	}
	if got := ix.Search("cats attached home", 1); len(got) != 1 {
		t.Errorf("k=1: got %d results", len(got))
	}
	bad := New(Config{K1: math.NaN(), B: 7})
	if bad.cfg != DefaultConfig() {
		t.Errorf("bad config kept: %+v", bad.cfg)
	}
}

func TestAddReplacesAndDelete(t *testing.T) {
	ix := newTiny(t)
	if got, want := ix.Len(), len(tinyCorpus); got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	ix.Add(2, "Parrots talk.")
	if got := ix.Search("dog owners", 5); got != nil {
		t.Errorf("replaced text still found: %v", got)
	}
	if got := ix.Search("parrot", 5); len(got) != 1 || got[0].ID != 2 {
		t.Errorf("Search(parrot) = %v, want [2]", got)
	}
	if got, want := ix.Len(), len(tinyCorpus); got != want {
		t.Errorf("Len after replace = %d, want %d", got, want)
	}
	if !ix.Delete(4) || ix.Delete(4) || ix.Delete(99) {
		t.Error("Delete reports wrong presence")
	}
	if got := ix.Search("bzDecompressInit", 5); got != nil {
		t.Errorf("deleted passage found: %v", got)
	}
	if df, n := ix.DocFreq("cat"); df != 2 || n != 4 {
		t.Errorf("DocFreq(cat) = %d, %d; want 2, 4", df, n)
	}
	checkLens(t, ix)
}

// TestCompaction deletes enough to trigger compaction and checks that
// searches and document frequencies still agree with a fresh index.
func TestCompaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ix := New(DefaultConfig())
	fresh := New(DefaultConfig())
	texts := make(map[uint64]string)
	for i := range 3000 {
		text := randomText(rng, 12)
		texts[uint64(i)] = text
		ix.Add(uint64(i), text)
	}
	for i := range 3000 {
		if i%3 != 0 {
			ix.Delete(uint64(i))
		} else {
			fresh.Add(uint64(i), texts[uint64(i)])
		}
	}
	if len(ix.docs) >= 3000 {
		t.Fatalf("no compaction: %d slots for %d live passages", len(ix.docs), ix.Len())
	}
	checkLens(t, ix)
	for q := range 50 {
		query := randomText(rng, 3)
		a, b := ix.Search(query, 10), fresh.Search(query, 10)
		if fmt.Sprint(indextest.IDs(a)) != fmt.Sprint(indextest.IDs(b)) {
			t.Fatalf("query %d %q: compacted %v, fresh %v", q, query, indextest.IDs(a), indextest.IDs(b))
		}
	}
}

var vocab = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa",
	"lambda", "sigma", "omega", "kernel", "memory", "leak", "buffer", "parser", "socket", "cache"}

func randomText(rng *rand.Rand, n int) string {
	s := ""
	for range n {
		s += vocab[rng.IntN(len(vocab))] + fmt.Sprint(rng.IntN(40)) + " "
	}
	return s
}

func TestConcurrentUse(t *testing.T) {
	ix := newTiny(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 300 {
				id := uint64(100 + rng.IntN(50))
				if i%4 == 3 {
					ix.Delete(id)
				} else {
					ix.Add(id, randomText(rng, 8))
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range 300 {
				for _, r := range ix.Search("cats homes kernel7 leak", 5) {
					if r.Score <= 0 {
						t.Errorf("non-positive score %v", r)
					}
				}
				ix.DocFreq("cat")
				ix.Len()
			}
		}()
	}
	wg.Wait()
	if got := ix.Search("feline", 1); len(got) != 1 || got[0].ID != 3 {
		t.Errorf("after concurrent churn Search(feline) = %v", got)
	}
}

func TestIDF(t *testing.T) {
	ix := newTiny(t)
	df, n := ix.DocFreq("cat")
	if df != 2 || n != 5 {
		t.Fatalf("DocFreq(cat) = %d, %d; want 2, 5", df, n)
	}
	want := math.Log(1 + (5-2+0.5)/(2+0.5))
	if got := ix.IDF("Cats"); math.Abs(got-want) > 1e-12 {
		t.Errorf("IDF(Cats) = %v, want %v", got, want)
	}
	if got := ix.IDF("the"); got != 0 {
		t.Errorf("IDF(the) = %v, want 0 for a stopword", got)
	}
	if rare, common := ix.IDF("feline"), ix.IDF("cats"); rare <= common {
		t.Errorf("IDF(feline) = %v not above IDF(cats) = %v", rare, common)
	}
}

// checkLens checks the scorers' dense copy of the passage lengths against
// the passages.
func checkLens(t *testing.T, ix *Index) {
	t.Helper()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if len(ix.lens) != len(ix.docs) {
		t.Fatalf("lens has %d slots, docs %d", len(ix.lens), len(ix.docs))
	}
	for s, d := range ix.docs {
		if want := map[bool]uint32{true: d.length, false: deadLen}[d.alive]; ix.lens[s] != want {
			t.Fatalf("slot %d: lens %d, want %d (alive %v)", s, ix.lens[s], want, d.alive)
		}
	}
}
