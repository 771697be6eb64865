package lexical

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/internal/cputime"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// savedTiny is newTiny saved into a new indextest.KV.
func savedTiny(t *testing.T) (*Index, *indextest.KV) {
	t.Helper()
	ix := newTiny(t)
	kv := indextest.NewKV()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	return ix, kv
}

func sameSearches(t *testing.T, a, b *Index, queries ...string) {
	t.Helper()
	for _, q := range queries {
		ra, rb := a.Search(q, 10), b.Search(q, 10)
		if fmt.Sprint(ra) != fmt.Sprint(rb) {
			t.Errorf("Search(%q): %v vs %v", q, ra, rb)
		}
	}
}

var probeQueries = []string{"cats home", "attached", "BZ2_bzDecompressInit", "--leak-check=full", "dog", "parrot talk"}

func TestSaveLoadRoundTrip(t *testing.T) {
	ix, kv := savedTiny(t)
	if got, want := kv.Puts, len(tinyCorpus)+2; got != want {
		t.Errorf("first Save: %d puts, want %d (records + meta + dictionary)", got, want)
	}
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(tinyCorpus))
	if err != nil {
		t.Fatal(err)
	}
	if want := (LoadStats{Loaded: len(tinyCorpus)}); st != want {
		t.Errorf("LoadStats = %+v, want %+v", st, want)
	}
	sameSearches(t, ix, got, probeQueries...)

	// Nothing changed: Save writes nothing.
	kv.Puts = 0
	if err := got.Save(kv); err != nil || kv.Puts != 0 || kv.Deletes != 0 {
		t.Errorf("idle Save: err %v, %d puts, %d deletes", err, kv.Puts, kv.Deletes)
	}
}

func TestSaveIncremental(t *testing.T) {
	ix, kv := savedTiny(t)
	kv.Puts = 0
	ix.Add(6, "Parrots talk.")
	ix.Delete(2)
	ix.Add(7, "gone soon")
	ix.Delete(7)
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if kv.Puts != 2 {
		t.Errorf("incremental Save: %d puts, want 2 (record 6 + dictionary chunk)", kv.Puts)
	}
	if _, ok := kv.M[string(docKey(2))]; ok {
		t.Error("record of deleted passage 2 still stored")
	}
	texts := maps.Clone(tinyCorpus)
	delete(texts, 2)
	texts[6] = "Parrots talk."
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil {
		t.Fatal(err)
	}
	if st != (LoadStats{Loaded: len(texts)}) {
		t.Errorf("LoadStats = %+v", st)
	}
	sameSearches(t, ix, got, probeQueries...)
}

func TestLoadReconciles(t *testing.T) {
	_, kv := savedTiny(t)
	// Passages now: 1 deleted behind the index's back, 3 changed, 8 new.
	texts := maps.Clone(tinyCorpus)
	delete(texts, 1)
	texts[3] = "Parrots talk."
	texts[8] = "Cats are attached to their homes."
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil {
		t.Fatal(err)
	}
	if want := (LoadStats{Loaded: 3, Tokenized: 2, Dropped: 1}); st != want {
		t.Errorf("LoadStats = %+v, want %+v", st, want)
	}
	want := New(DefaultConfig())
	for id, text := range texts {
		want.Add(id, text)
	}
	sameSearches(t, want, got, append(probeQueries, "feline")...)
	if err := got.Save(kv); err != nil {
		t.Fatal(err)
	}
	if _, ok := kv.M[string(docKey(1))]; ok {
		t.Error("orphan record 1 not deleted by Save after Load")
	}
	again, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Errorf("second Load: %+v, %v", st, err)
	}
	sameSearches(t, want, again, probeQueries...)
}

func TestLoadOtherTokenizerVersion(t *testing.T) {
	kv := indextest.NewKV()
	if err := newTiny(t).Save(kv); err != nil {
		t.Fatal(err)
	}
	kv.M[string(metaKey)] = []byte("lexical-tok-v0")
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(tinyCorpus))
	if err != nil || st != (LoadStats{Tokenized: len(tinyCorpus)}) {
		t.Fatalf("Load = %+v, %v; want everything re-tokenised", st, err)
	}
	kv.Puts = 0
	if err := got.Save(kv); err != nil || kv.Puts != len(tinyCorpus)+2 {
		t.Errorf("Save after version change: %d puts, %v", kv.Puts, err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	kv := indextest.NewKV()
	if err := newTiny(t).Save(kv); err != nil {
		t.Fatal(err)
	}
	kv.M[string(docKey(3))] = []byte{recordVersion, 0, 0, 0, 0, 5, 200}
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(tinyCorpus))
	if err != nil {
		t.Fatal(err)
	}
	if want := (LoadStats{Loaded: 4, Tokenized: 1, Corrupt: 1}); st != want {
		t.Errorf("LoadStats = %+v, want %+v", st, want)
	}
	sameSearches(t, newTiny(t), got, append(probeQueries, "feline")...)
}

// TestLoadAfterRolledBackSave simulates a caller whose transaction is rolled
// back after Save succeeded: the dictionary chunk written in it is lost, and
// later records refer to terms that only it held.
func TestLoadAfterRolledBackSave(t *testing.T) {
	texts := maps.Clone(tinyCorpus)
	ix, kv := savedTiny(t)
	texts[10] = "Zebras gallop across savanna."
	ix.Add(10, texts[10])
	rolledBack := kv.Clone()
	if err := ix.Save(rolledBack); err != nil {
		t.Fatal(err)
	}
	texts[11] = "Zebras and okapi graze."
	ix.Add(11, texts[11])
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil {
		t.Fatal(err)
	}
	if st.Loaded != len(tinyCorpus) || st.Tokenized != 2 {
		t.Errorf("LoadStats = %+v, want %d loaded and 2 tokenised", st, len(tinyCorpus))
	}
	sameSearches(t, ix, got, "zebra", "okapi graze", "savanna", "cats home")
	if err := got.Save(kv); err != nil {
		t.Fatal(err)
	}
	again, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Errorf("Load after repair: %+v, %v", st, err)
	}
	sameSearches(t, ix, again, "zebra", "okapi graze", "savanna", "cats home")
}

func TestSaveErrorKeepsChanges(t *testing.T) {
	ix := newTiny(t)
	kv := indextest.NewKV()
	kv.FailPut = errors.New("disk full")
	if err := ix.Save(kv); err == nil {
		t.Fatal("Save with failing Put returned nil")
	}
	kv.FailPut = nil
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if got := len(kv.M); got != len(tinyCorpus)+2 {
		t.Errorf("after retry %d keys, want %d", got, len(tinyCorpus)+2)
	}
}

// BenchmarkLoad measures Load of persisted records for b.N iterations at a
// realistic passage size (≈150 words).
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			texts, kv := persistedCorpus(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				ix, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
				if err != nil || st.Loaded != n || ix.Len() != n {
					b.Fatalf("Load: %+v %v", st, err)
				}
			}
		})
	}
}

func persistedCorpus(b *testing.B, n int) (map[uint64]string, *indextest.KV) {
	rng := rand.New(rand.NewPCG(7, 7))
	texts := make(map[uint64]string, n)
	ix := New(DefaultConfig())
	for i := range n {
		texts[uint64(i)] = zipfText(rng, 150)
		ix.Add(uint64(i), texts[uint64(i)])
	}
	kv := indextest.NewKV()
	if err := ix.Save(kv); err != nil {
		b.Fatal(err)
	}
	return texts, kv
}

// zipfText draws words from a 50k-word synthetic vocabulary with a Zipf
// distribution, like natural text.
func zipfText(rng *rand.Rand, words int) string {
	z := rand.NewZipf(rng, 1.1, 2, 50_000)
	buf := make([]byte, 0, words*8)
	for range words {
		w := z.Uint64()
		buf = fmt.Appendf(buf, "w%x ", w)
	}
	return string(buf)
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 3))
			ix := New(DefaultConfig())
			for i := range n {
				ix.Add(uint64(i), zipfText(rng, 150))
			}
			queries := make([]string, 64)
			for i := range queries {
				queries[i] = zipfText(rng, 6)
			}
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cputime.Process()
			for i := range b.N {
				ix.Search(queries[i%len(queries)], 10)
			}
			reportCPU(b, c0)
		})
	}
}

func idsOf(m map[uint64]string) iter.Seq[uint64] {
	return slices.Values(slices.Sorted(maps.Keys(m)))
}

// TestLoadIDs: reconciling by id gives the same index as Load, asks for the
// text of a passage only when its record is missing, and drops records of
// vanished passages.
func TestLoadIDs(t *testing.T) {
	_, kv := savedTiny(t)
	texts := maps.Clone(tinyCorpus)
	texts[9] = "a parrot that can talk"
	delete(texts, 2)
	var asked []uint64
	text := func(id uint64) (string, error) { asked = append(asked, id); return texts[id], nil }
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), text)
	if err != nil {
		t.Fatal(err)
	}
	if want := (LoadStats{Loaded: len(tinyCorpus) - 1, Tokenized: 1, Dropped: 1}); st != want {
		t.Errorf("LoadStats = %+v, want %+v", st, want)
	}
	if fmt.Sprint(asked) != "[9]" {
		t.Errorf("asked for the text of %v, want [9]", asked)
	}
	want, _, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil {
		t.Fatal(err)
	}
	sameSearches(t, want, got, probeQueries...)

	boom := errors.New("boom")
	kv.M = map[string][]byte{}
	if _, _, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), func(uint64) (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Errorf("LoadIDs with a failing text = %v, want %v", err, boom)
	}
}

// reportCPU reports the process CPU time spent since c0 per iteration, as
// cpu-ns/op: on a shared machine wall time mostly measures the neighbours.
func reportCPU(b *testing.B, c0 time.Duration) {
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
}
