package lexical

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// smallSegments makes Save write a segment from min passages' worth of
// records, cut into chunks of 4 KiB, for the duration of the test.
func smallSegments(t *testing.T, min int) {
	t.Helper()
	oldMin, oldChunk := segmentMin, segChunkSize
	segmentMin, segChunkSize = min, 4096
	t.Cleanup(func() { segmentMin, segChunkSize = oldMin, oldChunk })
}

// segmentCorpus is n random passages with ids 100..100+n-1.
func segmentCorpus(seed uint64, n int) map[uint64]string {
	rng := rand.New(rand.NewPCG(seed, 5))
	texts := make(map[uint64]string, n)
	for i := range n {
		texts[uint64(100+i)] = randomText(rng, 5+rng.IntN(40))
	}
	return texts
}

// savedCorpus is segmentCorpus(seed, n), indexed and saved into a new KV.
func savedCorpus(t *testing.T, seed uint64, n int) (map[uint64]string, *Index, *indextest.KV) {
	t.Helper()
	texts := segmentCorpus(seed, n)
	ix := indexOf(texts)
	kv := indextest.NewKV()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	return texts, ix, kv
}

func indexOf(texts map[uint64]string) *Index {
	ix := New(DefaultConfig())
	for _, id := range slices.Sorted(maps.Keys(texts)) {
		ix.Add(id, texts[id])
	}
	return ix
}

// churn adds 10 passages (ids 1000-1009) to ix and texts and deletes the
// first 10 of segmentCorpus (ids 100-109).
func churn(texts map[uint64]string, ix *Index, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := range 10 {
		texts[uint64(1000+i)] = randomText(rng, 20)
		ix.Add(uint64(1000+i), texts[uint64(1000+i)])
		delete(texts, uint64(100+i))
		ix.Delete(uint64(100 + i))
	}
}

// keysOf counts passage keys (records and tombstones) and segment chunks.
func keysOf(kv *indextest.KV) (passages, chunks int) {
	for k := range kv.M {
		switch {
		case len(k) == 8:
			passages++
		case bytes.HasPrefix([]byte(k), segChunkPrefix):
			chunks++
		}
	}
	return passages, chunks
}

var segmentQueries = []string{"alpha1 beta2", "kernel memory leak", "socket7", "cache parser buffer", "omega39 sigma0 zeta3"}

// sameAsFresh checks that got searches exactly like an index built from
// texts, and that pruned search matches exhaustive scoring on it.
func sameAsFresh(t *testing.T, got *Index, texts map[uint64]string) {
	t.Helper()
	if got.Len() != len(texts) {
		t.Errorf("Len = %d, want %d", got.Len(), len(texts))
	}
	sameSearches(t, indexOf(texts), got, segmentQueries...)
	checkLens(t, got)
	for _, q := range segmentQueries {
		if a, b := got.Search(q, 10), got.searchExhaustive(q, 10); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("Search(%q) = %v, exhaustive %v", q, a, b)
		}
	}
}

// saveReloads saves ix into kv and checks that LoadIDs then restores
// exactly texts without tokenising anything.
func saveReloads(t *testing.T, ix *Index, kv *indextest.KV, texts map[uint64]string) {
	t.Helper()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), nil)
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Fatalf("LoadIDs after Save = %+v, %v", st, err)
	}
	sameAsFresh(t, got, texts)
}

func TestSegmentRoundTrip(t *testing.T) {
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, 1, 400)
	if p, c := keysOf(kv); p != 0 || c < 4 {
		t.Fatalf("after the first Save: %d passage keys, %d segment chunks; want 0 and several", p, c)
	}
	got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(texts))
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Fatalf("Load = %+v, %v", st, err)
	}
	sameAsFresh(t, got, texts)
	got, st, err = LoadIDs(kv, DefaultConfig(), idsOf(texts), func(id uint64) (string, error) {
		return "", fmt.Errorf("text of %d asked", id)
	})
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Fatalf("LoadIDs = %+v, %v", st, err)
	}
	sameAsFresh(t, got, texts)
	kv.Puts, kv.Deletes = 0, 0
	if err := got.Save(kv); err != nil || kv.Puts+kv.Deletes != 0 {
		t.Errorf("idle Save: %v, %d puts, %d deletes", err, kv.Puts, kv.Deletes)
	}
}

// TestSegmentIncremental: a few changes beside a segment are a few records
// and tombstones, not a new segment; once they outnumber a sixteenth of the
// segment, Save writes a new one and drops them.
func TestSegmentIncremental(t *testing.T) {
	smallSegments(t, 16)
	texts, ix, kv := savedCorpus(t, 2, 400)
	churn(texts, ix, 2)
	kv.Puts, kv.Deletes = 0, 0
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if kv.Puts > 21 || kv.Deletes != 0 {
		t.Errorf("incremental Save: %d puts, %d deletes; want ≤ 21 (10 records, 10 tombstones, a dictionary chunk), 0", kv.Puts, kv.Deletes)
	}
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), nil)
	if err != nil || st != (LoadStats{Loaded: len(texts)}) {
		t.Fatalf("LoadIDs = %+v, %v", st, err)
	}
	sameAsFresh(t, got, texts)

	for i := 10; i < 20; i++ { // 10 more: 30 > 400/16 (a quarter would keep them)
		delete(texts, uint64(100+i))
		got.Delete(uint64(100 + i))
	}
	saveReloads(t, got, kv, texts)
	if p, _ := keysOf(kv); p != 0 {
		t.Errorf("%d passage keys left after the segment was rewritten", p)
	}
}

// TestSegmentUpgrade: records in the older per-passage format load, ask for
// a rewrite, and the next Save turns them into a segment.
func TestSegmentUpgrade(t *testing.T) {
	smallSegments(t, 1<<30)
	texts, _, kv := savedCorpus(t, 3, 300)
	if p, c := keysOf(kv); p != len(texts) || c != 0 {
		t.Fatalf("old format: %d records, %d chunks", p, c)
	}
	segmentMin = 16
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), nil)
	if err != nil || st != (LoadStats{Loaded: len(texts), Rewrite: true}) {
		t.Fatalf("LoadIDs of the old format = %+v, %v", st, err)
	}
	saveReloads(t, got, kv, texts)
	if p, c := keysOf(kv); p != 0 || c == 0 {
		t.Errorf("after upgrade: %d records, %d chunks", p, c)
	}
}

// TestSegmentReconciles: the process died between the store's write and the
// index's Save: passages were added and removed behind the segment's back.
func TestSegmentReconciles(t *testing.T) {
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, 4, 300)
	for i := range 7 {
		delete(texts, uint64(150+i))
		texts[uint64(5000+i)] = fmt.Sprintf("kernel%d leak memory", i)
	}
	var asked []uint64
	text := func(id uint64) (string, error) { asked = append(asked, id); return texts[id], nil }
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), text)
	if err != nil || st != (LoadStats{Loaded: len(texts) - 7, Tokenized: 7, Dropped: 7}) {
		t.Fatalf("LoadIDs = %+v, %v", st, err)
	}
	if len(asked) != 7 || asked[0] != 5000 {
		t.Errorf("asked for the text of %v, want 5000..5006", asked)
	}
	sameAsFresh(t, got, texts)
	saveReloads(t, got, kv, texts)
}

// TestSegmentDamaged: a damaged or truncated segment is reported in
// LoadStats.Reason and its passages are tokenised from the store again;
// the next Save writes a sound segment. Nothing panics. Read in place too,
// where the records and postings are checked while the tables are decoded.
func TestSegmentDamaged(t *testing.T) {
	damages := map[string]func(kv *indextest.KV){
		"truncated chunk": func(kv *indextest.KV) {
			k := string(segChunkKey(streamPost, 1))
			kv.M[k] = kv.M[k][:100]
		},
		"missing chunk": func(kv *indextest.KV) { delete(kv.M, string(segChunkKey(streamTables, 0))) },
		"flipped byte":  func(kv *indextest.KV) { kv.M[string(segChunkKey(streamFwd, 0))][77] ^= 0x10 },
		"flipped posting byte": func(kv *indextest.KV) {
			kv.M[string(segChunkKey(streamPost, 2))][5] ^= 0x01
		},
		"extra chunk": func(kv *indextest.KV) { kv.M[string(segChunkKey(streamTables, 0))] = make([]byte, 1<<16) },
		"manifest":    func(kv *indextest.KV) { kv.M[string(segMetaKey)][3] ^= 1 },
		"short manifest": func(kv *indextest.KV) {
			kv.M[string(segMetaKey)] = kv.M[string(segMetaKey)][:9]
		},
		"garbled terms, checksum good": garbleTerms,
		"dictionary lost": func(kv *indextest.KV) {
			for k := range kv.M {
				if bytes.HasPrefix([]byte(k), dictPrefix) {
					delete(kv.M, k)
				}
			}
		},
	}
	for name, damage := range damages {
		for _, inPlace := range []bool{false, true} {
			t.Run(fmt.Sprint(name, " in place ", inPlace), func(t *testing.T) {
				damagedLoad(t, damage, inPlace)
			})
		}
	}
}

// garbleTerms overwrites the first chunk of packed terms with the bytes of
// float32s (what a library's vector pages hold) and writes the checksum of
// the garbled stream into the manifest: a segment written from packed terms
// read in place out of pages bbolt had reused (TestRenewedPinKeepsTermsInPlace
// in library/embedded), whose checksums all pass.
func garbleTerms(kv *indextest.KV) {
	c := kv.M[string(segChunkKey(streamFwd, 0))]
	for i := 0; i+4 <= len(c); i += 4 {
		binary.LittleEndian.PutUint32(c[i:], math.Float32bits(float32(i%97-48)/700))
	}
	m, err := decodeManifest(kv.M[string(segMetaKey)])
	if err != nil {
		panic(err)
	}
	m.crcFwd = 0
	for i := uint32(0); ; i++ {
		v, ok := kv.M[string(segChunkKey(streamFwd, i))]
		if !ok {
			break
		}
		m.crcFwd = crc32.Update(m.crcFwd, castagnoli, v)
	}
	kv.M[string(segMetaKey)] = m.encode()
}

// damagedLoad saves a corpus, damages the KV, and checks that the load
// notices and tokenises every passage again.
func damagedLoad(t *testing.T, damage func(kv *indextest.KV), inPlace bool) {
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, 5, 300)
	damage(kv)
	var load index.KV = kv
	if inPlace {
		load = InPlace(mappedKV{kv})
	}
	got, st, err := LoadIDs(load, DefaultConfig(), idsOf(texts), func(id uint64) (string, error) { return texts[id], nil })
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(st.Reason, errSegment) || st.Tokenized != len(texts) || !st.Rewrite {
		t.Errorf("LoadStats = %+v; want the segment reported and every passage tokenised", st)
	}
	sameAsFresh(t, got, texts)
	if !inPlace {
		saveReloads(t, got, kv, texts)
	}
}

// TestSegmentRolledBack: the transaction of the Save that wrote a segment
// was rolled back, and later incremental Saves went to the old state. Load
// still restores what the passages say.
func TestSegmentRolledBack(t *testing.T) {
	smallSegments(t, 16)
	texts, ix, kv := savedCorpus(t, 6, 200)
	for i := range 60 { // due: 60 > 200/4
		delete(texts, uint64(100+i))
		ix.Delete(uint64(100 + i))
	}
	texts[9000] = "zebra gallops"
	ix.Add(9000, texts[9000])
	if err := ix.Save(kv.Clone()); err != nil { // rolled back
		t.Fatal(err)
	}
	texts[9001] = "okapi grazes"
	ix.Add(9001, texts[9001])
	delete(texts, 290)
	ix.Delete(290)
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	text := func(id uint64) (string, error) { return texts[id], nil }
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), text)
	if err != nil {
		t.Fatal(err)
	}
	// 9001's record refers to terms of a dictionary chunk that follows the
	// lost one: stale, so 9001 is tokenised again too.
	if st.Tokenized != 2 || st.Dropped != 60 {
		t.Errorf("LoadStats = %+v; want 9000 and 9001 tokenised and the 60 deletions of the lost Save dropped", st)
	}
	sameAsFresh(t, got, texts)
	sameSearches(t, ix, got, "zebra", "okapi", "alpha1")
}

// TestLoadDamagedDictionary: a dictionary chunk repeating a known term, or
// cut short, is dropped with the chunks after it; known terms keep their
// ids and the passages using lost terms are tokenised again.
func TestLoadDamagedDictionary(t *testing.T) {
	for name, chunk := range map[string][]byte{
		"duplicate": encodeTerms([]string{"zzznew", analysis.Tokenize("cats")[0]}),
		"truncated": encodeTerms([]string{"zzznew", "yyyother"})[:9],
	} {
		t.Run(name, func(t *testing.T) {
			ix, kv := savedTiny(t)
			kv.M[string(dictKey(len(ix.termStr)))] = chunk
			got, st, err := Load(kv, DefaultConfig(), indextest.Sorted(tinyCorpus))
			if err != nil || st != (LoadStats{Loaded: len(tinyCorpus), Corrupt: 1}) {
				t.Fatalf("Load = %+v, %v", st, err)
			}
			if len(got.termStr) != len(ix.termStr) || len(got.termIDs) != len(ix.termStr) {
				t.Errorf("%d terms, %d in the map; want %d", len(got.termStr), len(got.termIDs), len(ix.termStr))
			}
			sameSearches(t, ix, got, probeQueries...)
		})
	}
}

// TestSegmentOtherTokenizerVersion: a segment written by another tokenizer
// is not used; everything is tokenised and the next Save replaces it.
func TestSegmentOtherTokenizerVersion(t *testing.T) {
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, 7, 200)
	kv.M[string(metaKey)] = []byte("lexical-tok-v0")
	got, st, err := LoadIDs(kv, DefaultConfig(), idsOf(texts), func(id uint64) (string, error) { return texts[id], nil })
	if err != nil || st != (LoadStats{Tokenized: len(texts), Rewrite: true}) {
		t.Fatalf("LoadIDs = %+v, %v", st, err)
	}
	saveReloads(t, got, kv, texts)
}

// TestLoadSynced: with a KV in step with the passages, LoadSynced restores
// the segment's passages and the records and tombstones beside it without
// ranging over the ids; when the segment is damaged it falls back to them
// and tokenises what the segment held.
func TestLoadSynced(t *testing.T) {
	smallSegments(t, 16)
	texts, ix, kv := savedCorpus(t, 3, 400) // churn's 20 records stay beside 400/16
	churn(texts, ix, 3)
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	ranged := false
	ids := func(yield func(uint64) bool) {
		ranged = true
		idsOf(texts)(yield)
	}
	text := func(id uint64) (string, error) { return texts[id], nil }
	got, st, err := LoadSynced(kv, DefaultConfig(), ids, text)
	if err != nil || st != (LoadStats{Loaded: len(texts)}) || ranged {
		t.Fatalf("LoadSynced = %+v, %v; ranged over ids: %v", st, err, ranged)
	}
	sameAsFresh(t, got, texts)

	for k, v := range kv.M {
		if bytes.HasPrefix([]byte(k), segChunkPrefix) {
			kv.M[k] = v[:len(v)/2]
		}
	}
	got, st, err = LoadSynced(kv, DefaultConfig(), ids, text)
	if err != nil || !ranged || st.Reason == nil || st.Tokenized != len(texts)-10 {
		t.Fatalf("LoadSynced of a damaged segment = %+v, %v; ranged over ids: %v", st, err, ranged)
	}
	sameAsFresh(t, got, texts)
}

// TestFold: after Fold, a Save writes a segment once more than segmentMin
// passages are records beside it, though far fewer than a sixteenth of the
// segment; with segmentMin or fewer it keeps records; the folded KV loads
// to the same searches.
func TestFold(t *testing.T) {
	smallSegments(t, 16)
	texts, ix, kv := savedCorpus(t, 11, 2000)
	rng := rand.New(rand.NewPCG(12, 12))
	add := func(from, n int) {
		for i := range n {
			id := uint64(from + i)
			texts[id] = randomText(rng, 20)
			ix.Add(id, texts[id])
		}
	}
	add(10000, 16) // segmentMin records: Fold leaves them
	ix.Fold()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if recs, _ := keysOf(kv); recs != 16 {
		t.Fatalf("%d passage keys after a Save of 16 records, want 16", recs)
	}
	add(20000, 10) // 26 > segmentMin, far below 2000/16
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if recs, _ := keysOf(kv); recs != 26 {
		t.Fatalf("%d passage keys without Fold, want 26 records", recs)
	}
	add(30000, 1)
	ix.Fold()
	if err := ix.Save(kv); err != nil {
		t.Fatal(err)
	}
	if recs, chunks := keysOf(kv); recs != 0 || chunks == 0 {
		t.Fatalf("after Fold and Save: %d passage keys, %d segment chunks; want 0 and a segment", recs, chunks)
	}
	loaded, st, err := Load(kv, DefaultConfig(), maps.All(texts))
	if err != nil || st.Tokenized != 0 || st.Rewrite {
		t.Fatalf("Load of the folded KV: %+v, %v; want nothing tokenised or due", st, err)
	}
	sameSearches(t, ix, loaded, segmentQueries...)
}
