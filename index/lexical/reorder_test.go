package lexical

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// topicCorpus is n passages on topics passages of one topic share words
// (plus Zipf-distributed common words), the topics shuffled across ids, a
// passage in eight a copy of an earlier one (ties).
func topicCorpus(rng *rand.Rand, n int) []string {
	topics := 4 + rng.IntN(12)
	z := rand.NewZipf(rng, 1.1+rng.Float64(), 1, 400)
	var texts []string
	for range n {
		if len(texts) > 0 && rng.IntN(8) == 0 {
			texts = append(texts, texts[rng.IntN(len(texts))])
			continue
		}
		topic := rng.IntN(topics)
		ws := make([]string, 1+rng.IntN(60))
		for j := range ws {
			if rng.IntN(3) == 0 {
				ws[j] = fmt.Sprintf("c%d", z.Uint64())
			} else {
				ws[j] = fmt.Sprintf("t%dw%d", topic, rng.IntN(40)+rng.IntN(40))
			}
		}
		texts = append(texts, strings.Join(ws, " "))
	}
	return texts
}

// topicQuery is a query of one to eight words of the corpus's kinds.
func topicQuery(rng *rand.Rand) string {
	ws := make([]string, 1+rng.IntN(8))
	for j := range ws {
		if rng.IntN(3) == 0 {
			ws[j] = fmt.Sprintf("c%d", rng.IntN(30))
		} else {
			ws[j] = fmt.Sprintf("t%dw%d", rng.IntN(16), rng.IntN(80))
		}
	}
	return strings.Join(ws, " ")
}

func buildIndex(cfg Config, texts []string) *Index {
	ix := New(cfg)
	for i, t := range texts {
		ix.Add(uint64(i*7%len(texts)), t) // ids not in slot order
	}
	return ix
}

// TestReorderKeepsResults checks that moving the passages to other slots,
// by the bisection or at random, changes no search's results, scores or
// tie order (ties to the smaller id), pruned or exhaustive, filtered or
// not.
func TestReorderKeepsResults(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 41))
			texts := topicCorpus(rng, 1000+rng.IntN(2000))
			cfg := Config{K1: 0.5 + 2*rng.Float64(), B: rng.Float64()}
			orig, bp, shuffled := buildIndex(cfg, texts), buildIndex(cfg, texts), buildIndex(cfg, texts)
			bp.applyOrder(bp.bpOrder())
			perm := make([]uint32, len(texts))
			for i := range perm {
				perm[i] = uint32(i)
			}
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			shuffled.applyOrder(perm)
			if slices.Equal(slotIDs(orig), slotIDs(bp)) {
				t.Fatal("the bisection left every passage in its slot: the test checks nothing")
			}
			f := oddIDs{}
			for range 300 {
				q, k := topicQuery(rng), 1+rng.IntN(80)
				want := orig.Search(q, k)
				for name, ix := range map[string]*Index{"bisected": bp, "shuffled": shuffled} {
					if got := ix.Search(q, k); !slices.Equal(got, want) {
						t.Fatalf("%s, %q k %d:\n got %v\nwant %v", name, q, k, got, want)
					}
					if got, want := ix.SearchIn(q, k, f), orig.SearchIn(q, k, f); !slices.Equal(got, want) {
						t.Fatalf("%s, filtered, %q k %d:\n got %v\nwant %v", name, q, k, got, want)
					}
				}
				checkTieOrder(t, want)
			}
		})
	}
}

// checkTieOrder fails when equal scores are not in ascending id order.
func checkTieOrder(t *testing.T, rs []Result) {
	t.Helper()
	for i := 1; i < len(rs); i++ {
		if rs[i].Score == rs[i-1].Score && rs[i].ID < rs[i-1].ID {
			t.Fatalf("tie out of id order: %v", rs)
		}
	}
}

// oddIDs allows the odd passage ids.
type oddIDs struct{}

func (oddIDs) Allow(id uint64) bool { return id%2 == 1 }
func (oddIDs) Few() []uint64        { return nil }

func slotIDs(ix *Index) []uint64 {
	ids := make([]uint64, len(ix.docs))
	for i, d := range ix.docs {
		ids[i] = d.id
	}
	return ids
}

// TestBisectionOrder checks that the bisection is deterministic whatever
// the CPUs, returns a permutation, and groups a shuffled topical corpus:
// smaller gaps than the order the passages were added in.
func TestBisectionOrder(t *testing.T) {
	texts := topicCorpus(rand.New(rand.NewPCG(7, 41)), 3000)
	ix := buildIndex(DefaultConfig(), texts)
	order := ix.bpOrder()
	if got := slices.Sorted(slices.Values(order)); !slices.Equal(got, permutationOf(len(texts))) {
		t.Fatal("bpOrder is not a permutation of the slots")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if !slices.Equal(ix.bpOrder(), order) {
		t.Fatal("bpOrder differs on one CPU")
	}
	if before, after := logGaps(ix, nil), logGaps(ix, order); after > before*0.8 {
		t.Errorf("gaps of %.0f bits after the bisection, %.0f before: want at least a fifth less", after, before)
	}
}

// logGaps is the sum of log2(gap) over every posting, were the passages
// laid out in order (nil: as they are): the cost the bisection lowers.
func logGaps(ix *Index, order []uint32) float64 {
	last := make([]int, len(ix.post))
	bits := 0.0
	for i := range ix.docs {
		s := i
		if order != nil {
			s = int(order[i])
		}
		for t := range unpackTerms(ix.docs[s].terms) {
			bits += math.Log2(float64(i + 1 - last[t]))
			last[t] = i + 1
		}
	}
	return bits
}

func permutationOf(n int) []uint32 {
	p := make([]uint32, n)
	for i := range p {
		p[i] = uint32(i)
	}
	return p
}

// TestReorderedSegmentRoundTrip checks that a segment written by a Save
// that reorders loads into an index that searches exactly as one never
// reordered, keeps its slot order, and takes records beside it.
func TestReorderedSegmentRoundTrip(t *testing.T) {
	defer func(n int) { reorderFrom = n }(reorderFrom)
	reorderFrom = 100
	rng := rand.New(rand.NewPCG(3, 41))
	texts := topicCorpus(rng, 3000)
	plain, ix := buildIndex(DefaultConfig(), texts), buildIndex(DefaultConfig(), texts)
	kv := indextest.NewKV()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(slotIDs(plain), slotIDs(ix)) {
		t.Fatal("Save did not reorder: the test checks nothing")
	}
	textOf := func(id uint64) (string, error) { return texts[slices.Index(bisectIDs(len(texts)), id)], nil }
	loaded, st, err := LoadIDs(kv, DefaultConfig(), slices.Values(bisectIDs(len(texts))), textOf)
	if err != nil || st.Tokenized != 0 || st.Reason != nil {
		t.Fatalf("LoadIDs: %v, %+v", err, st)
	}
	if !slices.Equal(slotIDs(loaded), slotIDs(ix)) {
		t.Error("the loaded index's slots are not the saved order")
	}
	for i := range 20 { // records beside the segment
		id, text := uint64(len(texts)+i), topicCorpus(rng, 1)[0]
		plain.Add(id, text)
		loaded.Add(id, text)
	}
	for range 200 {
		q, k := topicQuery(rng), 1+rng.IntN(60)
		if got, want := loaded.Search(q, k), plain.Search(q, k); !slices.Equal(got, want) {
			t.Fatalf("%q k %d after the round trip:\n got %v\nwant %v", q, k, got, want)
		}
	}
}

// bisectIDs lists buildIndex's ids of n passages, by text index.
func bisectIDs(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i * 7 % n)
	}
	return ids
}
