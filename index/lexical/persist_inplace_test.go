package lexical

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// mappedKV hands out the stored values themselves, as a bbolt read
// transaction hands out slices of its memory map.
type mappedKV struct{ *indextest.KV }

func (m mappedKV) Get(key []byte) []byte { return m.M[string(key)] }

// segmentValues is every segment chunk stored in kv.
func segmentValues(kv *indextest.KV) [][]byte {
	var vs [][]byte
	for k, v := range kv.M {
		if bytes.HasPrefix([]byte(k), segChunkPrefix) {
			vs = append(vs, v)
		}
	}
	return vs
}

// within reports whether b lies inside one of vs.
func within(b []byte, vs [][]byte) bool {
	if len(b) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	for _, v := range vs {
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
		if p >= lo && p+uintptr(len(b)) <= lo+uintptr(len(v)) {
			return true
		}
	}
	return false
}

// aliased counts the passages' terms and the posting lists whose bytes
// lie in kv's segment chunks.
func aliased(ix *Index, kv *indextest.KV) (terms, lists int) {
	vs := segmentValues(kv)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, d := range ix.docs {
		if within(d.terms, vs) {
			terms++
		}
	}
	for i := range ix.post {
		for b := range ix.post[i].parts() {
			if within(b, vs) {
				lists++
				break
			}
		}
	}
	return terms, lists
}

// scribble overwrites kv's segment chunks, as pages reused after their
// transaction ended would be.
func scribble(kv *indextest.KV) {
	for _, v := range segmentValues(kv) {
		for i := range v {
			v[i] = byte(i * 7)
		}
	}
}

// loadInPlace saves segmentCorpus(seed, n) as a segment and loads it in
// place.
func loadInPlace(t *testing.T, seed uint64, n int) (map[uint64]string, *Index, *indextest.KV) {
	t.Helper()
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, seed, n)
	ix, _, err := LoadSynced(InPlace(mappedKV{kv}), DefaultConfig(), idsOf(texts), nil)
	if err != nil {
		t.Fatal(err)
	}
	return texts, ix, kv
}

// wantDetached checks that ix reads nothing of kv any more: it searches
// exactly like an index of texts once kv's chunks are overwritten.
func wantDetached(t *testing.T, ix *Index, kv *indextest.KV, texts map[uint64]string) {
	t.Helper()
	if terms, lists := aliased(ix, kv); terms+lists != 0 || ix.InPlaceBytes() != nil {
		t.Errorf("detached: %d terms and %d lists still in the KV, InPlaceBytes %d", terms, lists, len(ix.InPlaceBytes()))
	}
	scribble(kv)
	sameAsFresh(t, ix, texts)
}

func TestInPlaceLoad(t *testing.T) {
	for _, chunk := range []int{64, 4096, 1 << 20} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			smallSegments(t, 16)
			segChunkSize = chunk
			texts, _, kv := savedCorpus(t, 7, 400)
			noText := func(id uint64) (string, error) { return "", fmt.Errorf("passage %d tokenised", id) }
			ix, st, err := LoadSynced(InPlace(mappedKV{kv}), DefaultConfig(), idsOf(texts), noText)
			if err != nil || st != (LoadStats{Loaded: len(texts)}) {
				t.Fatalf("LoadSynced in place = %+v, %v", st, err)
			}
			sameAsFresh(t, ix, texts)
			terms, lists := aliased(ix, kv)
			// Only what straddles two chunks is copied: with 64-byte chunks
			// most passages do, with 1 MiB ones none.
			want := 2
			if chunk == 64 {
				want = 5
			}
			if terms < len(texts)/want || lists < len(ix.post)/want {
				t.Errorf("in place: %d of %d passages' terms and %d of %d lists read in place", terms, len(texts), lists, len(ix.post))
			}
			if got := len(ix.InPlaceBytes()); got == 0 {
				t.Error("InPlaceBytes is empty")
			}
			ix.Detach()
			wantDetached(t, ix, kv, texts)
		})
	}
}

func TestLoadCopiesWithoutInPlace(t *testing.T) {
	smallSegments(t, 16)
	texts, _, kv := savedCorpus(t, 8, 300)
	ix, _, err := LoadSynced(mappedKV{kv}, DefaultConfig(), idsOf(texts), nil)
	if err != nil {
		t.Fatal(err)
	}
	wantDetached(t, ix, kv, texts)
}

// TestDetachAfterChange changes the index between Detach's copy and its
// write lock: the copy must be made again, with the change in it.
func TestDetachAfterChange(t *testing.T) {
	texts, ix, kv := loadInPlace(t, 9, 300)
	rng := rand.New(rand.NewPCG(9, 9))
	betweenCopies = func() {
		churn(texts, ix, 9)
		for i := range 20 {
			texts[uint64(2000+i)] = randomText(rng, 30)
			ix.Add(uint64(2000+i), texts[uint64(2000+i)])
		}
	}
	defer func() { betweenCopies = nil }()
	ix.Detach()
	wantDetached(t, ix, kv, texts)
}

// TestDetachConcurrent detaches while passages are added and searched
// (run with -race).
func TestDetachConcurrent(t *testing.T) {
	texts, ix, kv := loadInPlace(t, 10, 300)
	rng := rand.New(rand.NewPCG(10, 10))
	added := make(map[uint64]string)
	for i := range 40 {
		added[uint64(3000+i)] = randomText(rng, 25)
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for id, text := range added {
			ix.Add(id, text)
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 50 {
			ix.Search(segmentQueries[i%len(segmentQueries)], 10)
		}
	}()
	go func() { defer wg.Done(); ix.Detach() }()
	wg.Wait()
	for id, text := range added {
		texts[id] = text
	}
	wantDetached(t, ix, kv, texts)
}

func TestUnload(t *testing.T) {
	_, ix, kv := loadInPlace(t, 11, 200)
	ix.Unload()
	if ix.Len() != 0 || ix.InPlaceBytes() != nil {
		t.Errorf("after Unload: Len %d, InPlaceBytes %d", ix.Len(), len(ix.InPlaceBytes()))
	}
	scribble(kv)
	for _, q := range segmentQueries {
		if r := ix.Search(q, 10); r != nil {
			t.Errorf("Search(%q) after Unload = %v", q, r)
		}
	}
}

// aheadKV is mappedKV recording the values it is asked to read ahead.
type aheadKV struct {
	mappedKV
	mu    sync.Mutex
	ahead [][]byte
}

func (a *aheadKV) ReadAhead(v []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.ahead = append(a.ahead, v)
}

// TestLoadReadsSegmentAhead: a KV that takes read-ahead hints is asked for
// every chunk of the segment, exactly the stored values, through InPlace
// and without it, and the index loads as it does without hints.
func TestLoadReadsSegmentAhead(t *testing.T) {
	smallSegments(t, 16)
	segChunkSize = 4096
	texts, _, kv := savedCorpus(t, 10, 300)
	chunks := segmentValues(kv)
	if len(chunks) < 3 {
		t.Fatalf("%d segment chunks; want several", len(chunks))
	}
	for _, inPlace := range []bool{true, false} {
		a := &aheadKV{mappedKV: mappedKV{kv}}
		var load index.KV = a
		if inPlace {
			load = InPlace(a)
		}
		ix, st, err := LoadSynced(load, DefaultConfig(), idsOf(texts), nil)
		if err != nil || st != (LoadStats{Loaded: len(texts)}) {
			t.Fatalf("in place %v: LoadSynced = %+v, %v", inPlace, st, err)
		}
		sameAsFresh(t, ix, texts)
		if len(a.ahead) != len(chunks) {
			t.Errorf("in place %v: %d values read ahead, want the %d segment chunks", inPlace, len(a.ahead), len(chunks))
		}
		for _, v := range a.ahead {
			if !within(v, chunks) || len(v) == 0 {
				t.Errorf("in place %v: read ahead %d bytes that are not a segment chunk", inPlace, len(v))
			}
		}
		ix.Detach()
	}
}

// TestInPlaceStraddlingLists: a posting list whose bytes lie in several of
// the segment's chunks is read in place, in pieces; only a block that
// straddles two chunks is copied, at most one a chunk boundary. The index
// then searches, grows (a tail after the last piece), saves and detaches
// like a fresh one.
func TestInPlaceStraddlingLists(t *testing.T) {
	for _, chunk := range []int{512, 1000, 4096} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			smallSegments(t, 16)
			segChunkSize = chunk
			texts := segmentCorpus(12, 3000)
			for id, s := range texts {
				texts[id] = "the common " + s + " the" // lists of several chunks
			}
			kv := indextest.NewKV()
			if err := indexOf(texts).Save(kv); err != nil {
				t.Fatal(err)
			}
			noText := func(id uint64) (string, error) { return "", fmt.Errorf("passage %d tokenised", id) }
			ix, st, err := LoadSynced(InPlace(mappedKV{kv}), DefaultConfig(), idsOf(texts), noText)
			if err != nil || st != (LoadStats{Loaded: len(texts)}) {
				t.Fatalf("LoadSynced in place = %+v, %v", st, err)
			}
			wantPieces(t, ix, kv)
			sameAsFresh(t, ix, texts)
			churn(texts, ix, 12)
			for i := range 300 { // past a block of every long list: tails
				id := uint64(5000 + i)
				texts[id] = "the common tail" + fmt.Sprint(i%7)
				ix.Add(id, texts[id])
			}
			sameAsFresh(t, ix, texts)
			saves := ix.SegmentSaves()
			saveReloads(t, ix, kv, texts) // a new segment, written from the pieces
			if ix.SegmentSaves() == saves {
				t.Error("Save wrote no segment")
			}
			ix.Detach()
			wantDetached(t, ix, kv, texts)
		})
	}
}

// wantPieces checks that every posting list of ix, just loaded in place
// from kv, lies in kv's segment chunks but for copies of single blocks,
// at most one a boundary between two postings chunks, and that some lists
// span several chunks (so that the check means something).
func wantPieces(t *testing.T, ix *Index, kv *indextest.KV) {
	t.Helper()
	vs, chunks := segmentValues(kv), streamChunks(kv, streamPost)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	copies, long := 0, 0
	for t0 := range ix.post {
		p := &ix.post[t0]
		if p.size() > segChunkSize {
			long++
		}
		off := 0
		for b := range p.parts() {
			if len(b) > 0 && !within(b, vs) {
				copies++
				bi, _ := slices.BinarySearchFunc(p.blocks, off, func(bl block, off int) int { return int(bl.off) - off })
				end := p.size()
				if bi+1 < len(p.blocks) {
					end = int(p.blocks[bi+1].off)
				}
				if bi == len(p.blocks) || int(p.blocks[bi].off) != off || off+len(b) != end {
					t.Errorf("term %d: %d bytes copied at %d, not one block", t0, len(b), off)
				}
			}
			off += len(b)
		}
	}
	if long < 2 || copies > chunks-1 {
		t.Errorf("%d lists longer than a chunk, %d blocks copied for %d postings chunks; want ≥ 2 and at most one a boundary", long, copies, chunks)
	}
}

// TestInPlaceLoadWithRecords: passages saved as records beside the
// segment add their postings to the lists read in place in tails; the
// lists stay in the segment's chunks instead of being copied whole.
func TestInPlaceLoadWithRecords(t *testing.T) {
	smallSegments(t, 16)
	texts, ix, kv := savedCorpus(t, 13, 400)
	churn(texts, ix, 13)
	saves := ix.SegmentSaves()
	if err := ix.Save(kv); err != nil || ix.SegmentSaves() != saves {
		t.Fatalf("Save = %v, segment saves %d → %d; want records only", err, saves, ix.SegmentSaves())
	}
	noText := func(id uint64) (string, error) { return "", fmt.Errorf("passage %d tokenised", id) }
	got, st, err := LoadSynced(InPlace(mappedKV{kv}), DefaultConfig(), idsOf(texts), noText)
	if err != nil || st.Loaded != len(texts) {
		t.Fatalf("LoadSynced in place = %+v, %v", st, err)
	}
	sameAsFresh(t, got, texts)
	vs, tails, copied := segmentValues(kv), 0, 0
	for i := range got.post {
		p := &got.post[i]
		switch {
		case p.tail != nil:
			tails++
		case p.size() > 0 && !slices.ContainsFunc(slices.Collect(p.parts()), func(b []byte) bool { return within(b, vs) }):
			copied++
		}
	}
	// Only a list of one block that straddles two chunks is copied whole
	// without postings added: at most one a boundary.
	if boundaries := streamChunks(kv, streamPost) - 1; tails == 0 || copied > boundaries {
		t.Errorf("%d of %d lists copied without postings added (%d chunk boundaries), %d with tails; want some tails", copied, len(got.post), boundaries, tails)
	}
	got.Detach()
	wantDetached(t, got, kv, texts)
}

// streamChunks counts the chunks of a segment stream in kv.
func streamChunks(kv *indextest.KV, stream byte) int {
	n := 0
	for k := range kv.M {
		if bytes.HasPrefix([]byte(k), append(bytes.Clone(segChunkPrefix), stream)) {
			n++
		}
	}
	return n
}

// TestVarintEnds: the lane-wise count of bytes below 0x80 agrees with a
// byte-by-byte count at every length around its 32-byte rounds and its
// 63-round flushes, on bytes of every value.
func TestVarintEnds(t *testing.T) {
	buf := make([]byte, 3*63*32+77)
	for i := range buf {
		buf[i] = byte(i*7 + i>>9)
	}
	for _, n := range []int{0, 1, 31, 32, 33, 63 * 32, 63*32 + 1, 64 * 32, 2*63*32 + 5, len(buf)} {
		want := uint64(0)
		for _, c := range buf[:n] {
			if c < 0x80 {
				want++
			}
		}
		if got := varintEnds(buf[:n]); got != want {
			t.Errorf("%d bytes: %d ends, want %d", n, got, want)
		}
	}
	low := make([]byte, 5000) // every byte an end: the lanes at their fullest
	if got := varintEnds(low); got != 5000 {
		t.Errorf("5000 zero bytes: %d ends", got)
	}
}
