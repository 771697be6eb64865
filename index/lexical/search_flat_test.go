package lexical

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// flatCorpus adds n random passages to ix: a skewed vocabulary, some words
// repeated (tf beyond the saturation table) and some passages longer than
// the table's lengths, with replacements and deletions.
func flatCorpus(ix *Index, rng *rand.Rand, n int, word func() string) {
	for range n {
		ws := make([]string, 1+rng.IntN(40))
		if rng.IntN(20) == 0 {
			ws = make([]string, satLens+rng.IntN(200))
		}
		for j := range ws {
			ws[j] = word()
		}
		if rng.IntN(10) == 0 {
			for range satTFs - 4 + rng.IntN(20) { // tf above satTFs
				ws = append(ws, ws[0])
			}
		}
		ix.Add(uint64(rng.IntN(n*2)), strings.Join(ws, " "))
		if rng.IntN(5) == 0 {
			ix.Delete(uint64(rng.IntN(n * 2)))
		}
	}
}

// setFlatFrom sets flatFrom for the test.
func setFlatFrom(t testing.TB, n int) {
	old := flatFrom
	flatFrom = n
	t.Cleanup(func() { flatFrom = old })
}

// TestFlatMatchesCompressed: with every list scored from flat copies, kept
// across searches while passages are added, replaced and deleted between
// them, Search returns exactly the ids and scores of the reference scorer
// (which decodes the compressed lists), in every scoring strategy. A copy
// not dropped on a change would score deleted or moved passages, or miss
// new ones.
func TestFlatMatchesCompressed(t *testing.T) {
	setFlatFrom(t, 1)
	defer func() { exhaustiveFrom, splitFrom, pruneEager = 50, 1<<15, false }()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		z := rand.NewZipf(rng, 1.1+rng.Float64(), 1, 400)
		word := func() string { return fmt.Sprintf("w%d", z.Uint64()) }
		ix := New(Config{K1: 0.5 + 2*rng.Float64(), B: rng.Float64()})
		for round := range 8 {
			if round%2 == 0 {
				flatCorpus(ix, rng, 100+rng.IntN(400), word)
			} else { // deletions only: no list grows, so only they drop copies
				for range 100 {
					ix.Delete(uint64(rng.IntN(1000)))
				}
			}
			for q := range 30 {
				query := strings.Join([]string{word(), word(), word(), word()}[:1+rng.IntN(4)], " ")
				k := 1 + rng.IntN(80)
				want := ix.searchExhaustive(query, k)
				for _, m := range [][3]int{{1 << 30, 1 << 30, 0}, {1, 1, 0}, {1 << 30, 1 << 30, 1}} {
					exhaustiveFrom, splitFrom, pruneEager = m[0], m[1], m[2] == 1
					if got := ix.Search(query, k); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("seed %d round %d query %d %q k %d mode %v:\n got       %v\n reference %v", seed, round, q, query, k, m, got, want)
					}
				}
			}
		}
	}
}

// TestFlatDropped: a search leaves flat copies of the lists it read;
// deleting a passage drops those of its terms' lists and only those, and so
// does adding one to a list whose copy is small.
func TestFlatDropped(t *testing.T) {
	setFlatFrom(t, 1)
	ix := New(DefaultConfig())
	ix.Add(1, "alpha beta")
	ix.Add(2, "alpha gamma")
	ix.Add(3, "delta")
	list := func(w string) *postings { return &ix.post[ix.termIDs[analysis.Tokenize(w)[0]]] }
	has := func(w string) bool { return list(w).flat.Load() != nil }
	if len(ix.Search("alpha beta gamma delta", 10)) != 3 || !has("alpha") || !has("delta") {
		t.Fatal("search left no flat copies")
	}
	ix.Delete(2)
	if has("alpha") || has("gamma") || !has("beta") || !has("delta") {
		t.Fatalf("after Delete: alpha %v gamma %v beta %v delta %v", has("alpha"), has("gamma"), has("beta"), has("delta"))
	}
	ix.Search("alpha gamma", 10)
	ix.Add(4, "gamma")
	if has("gamma") || !has("alpha") {
		t.Fatalf("after Add: gamma %v alpha %v", has("gamma"), has("alpha"))
	}
	if got := ix.Search("gamma", 10); len(got) != 1 || got[0].ID != 4 {
		t.Fatalf("gamma: %v", got)
	}
	if f := ix.flat(list("alpha")); len(f.slots)+len(f.xslots) != 1 {
		t.Fatalf("alpha's copy holds %d postings, want 1 (the deleted passage's is left out)", len(f.slots)+len(f.xslots))
	}
}

// TestFlatConcurrent: searches building and reading flat copies while
// writers add and delete passages (run with -race); afterwards the index
// still matches the reference scorer.
func TestFlatConcurrent(t *testing.T) {
	setFlatFrom(t, 1)
	rng := rand.New(rand.NewPCG(3, 3))
	z := rand.NewZipf(rng, 1.2, 1, 200)
	var mu sync.Mutex // rng is not safe for concurrent use
	word := func() string {
		mu.Lock()
		defer mu.Unlock()
		return fmt.Sprintf("w%d", z.Uint64())
	}
	ix := New(DefaultConfig())
	flatCorpus(ix, rand.New(rand.NewPCG(4, 4)), 500, word)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if g == 0 && i%4 == 0 {
					ix.Add(uint64(i%50), word()+" "+word())
					ix.Delete(uint64(i%70 + 1))
					continue
				}
				ix.Search(word()+" "+word()+" "+word(), 5+i%60)
			}
		})
	}
	wg.Wait()
	for range 50 {
		query := word() + " " + word()
		if got, want := ix.Search(query, 20), ix.searchExhaustive(query, 20); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q:\n got       %v\n reference %v", query, got, want)
		}
	}
}

// BenchmarkPostingLoop measures addList per posting on one list holding a
// third of the slots (a common word), compressed and from its flat copy,
// over an accumulator of 100k and 1M slots (passages of 50-300 tokens, 88%
// of the postings with tf 1), and what making the flat copy costs:
//
//	go test -run '^$' -bench PostingLoop -cpu 1 ./index/lexical/
func BenchmarkPostingLoop(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		ix := &Index{lens: make([]uint32, n), docs: make([]docEntry, n)}
		p := new(postings)
		for s := range ix.lens {
			ix.lens[s] = uint32(50 + rng.IntN(250))
			if rng.IntN(3) == 0 {
				tf := uint32(1)
				if rng.IntN(8) == 0 {
					tf += uint32(rng.IntN(6))
				}
				p.add(uint32(s), tf, ix.lens[s])
			}
		}
		bm := bm25{k1: 2, n: float64(n), base: 0.5, per: 0.01}
		sc := &scratch{sat: ix.satTable(bm), acc: make([]float32, n)}
		c := &cursor{p: p, w: 1.7}
		b.Run(fmt.Sprintf("n=%dk/flatten", n/1000), func(b *testing.B) {
			for b.Loop() {
				ix.flatten(p)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p.n), "ns/posting")
		})
		for _, mode := range []string{"compressed", "flat"} {
			b.Run(fmt.Sprintf("n=%dk/%s", n/1000, mode), func(b *testing.B) {
				setFlatFrom(b, map[string]int{"compressed": 1 << 40, "flat": 1}[mode])
				ix.flat(p) // built once, as the first search would
				for b.Loop() {
					sc.touched = ix.addList(c, sc, sc.acc, sc.touched[:0], bm, 0, exhausted)
					sc.clearAcc()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p.n), "ns/posting")
			})
		}
	}
}

// TestFlatBeingMade: while one search makes a list's copy, another reads
// the compressed list, with the same results, and makes no copy of its
// own; a later search uses the copy made.
func TestFlatBeingMade(t *testing.T) {
	setFlatFrom(t, 1)
	ix := New(DefaultConfig())
	for i := range 50 {
		ix.Add(uint64(i), fmt.Sprintf("alpha beta%d gamma%d", i%7, i%3))
	}
	want := ix.searchExhaustive("alpha beta3 gamma1", 10)
	p := &ix.post[ix.termIDs[analysis.Tokenize("alpha")[0]]]
	p.flat.Store(building)
	if got := ix.Search("alpha beta3 gamma1", 10); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("while the copy is made: %v, want %v", got, want)
	}
	if ix.flat(p) != nil || p.flat.Load() != building {
		t.Fatal("a second search made a copy of a list being copied")
	}
	p.flat.Store(nil)
	if got := ix.Search("alpha beta3 gamma1", 10); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the copy: %v, want %v", got, want)
	}
	if f := p.flat.Load(); f == nil || f == building || len(f.slots)+len(f.xslots) != 50 {
		t.Fatalf("the copy after a search: %v", f)
	}
}

// TestFlatKeepsTail: passages added after a list's copy was made are read
// compressed after it, with the same results as the reference scorer, until
// they reach a quarter of the copy, which is then made anew.
func TestFlatKeepsTail(t *testing.T) {
	setFlatFrom(t, 1)
	ix := New(DefaultConfig())
	for i := range 40 {
		ix.Add(uint64(i), fmt.Sprintf("alpha beta%d", i%5))
	}
	p := &ix.post[ix.termIDs[analysis.Tokenize("alpha")[0]]]
	ix.Search("alpha", 10)
	f := p.flat.Load()
	if f == nil || f.n != 40 {
		t.Fatalf("no copy of 40 postings after a search: %+v", f)
	}
	for i := 40; i < 49; i++ { // 9 postings: below a quarter of 40
		ix.Add(uint64(i), "alpha alpha alpha beta1") // a higher tf: these rank first
		if p.flat.Load() != f {
			t.Fatalf("the copy was dropped after %d added postings", i-39)
		}
		for _, k := range []int{1, 5, 60} {
			if got, want := ix.Search("alpha beta1", k), ix.searchExhaustive("alpha beta1", k); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%d added, k %d: %v, want %v", i-39, k, got, want)
			}
		}
	}
	ix.Add(49, "alpha")
	if p.flat.Load() != nil {
		t.Fatal("the copy was kept with a tail of a quarter of it")
	}
	if got := ix.Search("alpha", 60); len(got) != 50 || p.flat.Load() == nil || p.flat.Load().n != 50 {
		t.Fatalf("after the tail: %d results, copy %+v", len(got), p.flat.Load())
	}
}
