package vector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"iter"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// source is the vector store of truth: id -> vector as given.
type source map[uint64][]float32

func (s source) seq() iter.Seq2[uint64, []float32] { return indextest.Sorted(s) }

func sourceOf(d *dataset) source {
	s := source{}
	for i, v := range d.vecs {
		s[uint64(i)] = v
	}
	return s
}

func mustLoad(t *testing.T, kv index.KV, dim int, cfg Config, src source) (*Index, LoadStats) {
	t.Helper()
	x, st, err := Load(kv, dim, cfg, src.seq())
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	checkInvariants(t, x)
	return x, st
}

var persistCfg = Config{Seed: 5, ExactBelow: -1}

func TestSaveLoadRoundTrip(t *testing.T) {
	d := clustered(2000, 50, 24, 10, 21)
	x := mustBuild(t, d, persistCfg)
	kv := indextest.NewKV()
	kv.M[string(nodeKey(1<<50))] = []byte("node of an older graph")
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	if got, want := kv.Puts, 4001; got != want {
		t.Fatalf("first save: %d puts, want %d (codes + nodes + header)", got, want)
	}
	if kv.Deletes != 1 || kv.Get(nodeKey(1<<50)) != nil {
		t.Fatalf("first save of a new index kept a foreign node (%d deletes)", kv.Deletes)
	}
	y, st := mustLoad(t, kv, d.dim, persistCfg, sourceOf(d))
	if want := (LoadStats{Vectors: 2000, Nodes: 2000}); st != want {
		t.Fatalf("stats %+v, want %+v", st, want)
	}
	checkCleanLoad(t, x, y, kv, d.queries)
}

// checkCleanLoad checks that y, loaded from what x saved into kv, answers
// queries as x does and that saving it again writes only the header.
func checkCleanLoad(t *testing.T, x, y *Index, kv *indextest.KV, queries [][]float32) {
	t.Helper()
	if !reflect.DeepEqual(searchAll(t, x, queries, 10, 40), searchAll(t, y, queries, 10, 40)) {
		t.Fatal("loaded index answers differently from the saved one")
	}
	kv.ResetCounts()
	if err := y.Save(kv); err != nil {
		t.Fatal(err)
	}
	if kv.Puts != 1 || kv.Deletes != 0 {
		t.Fatalf("save after load without changes: %d puts %d deletes, want only the header", kv.Puts, kv.Deletes)
	}
}

// savedPrefix builds an index of d's first n vectors with cfg and saves it
// into a new indextest.KV.
func savedPrefix(t *testing.T, d *dataset, n int, cfg Config) (*Index, *indextest.KV) {
	t.Helper()
	x := New(d.dim, cfg)
	for i := range n {
		if err := x.Add(uint64(i), d.vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	kv := indextest.NewKV()
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	return x, kv
}

func TestIncrementalSaveWritesOnlyDirty(t *testing.T) {
	d := clustered(2100, 20, 24, 10, 22)
	src := sourceOf(d)
	x, kv := savedPrefix(t, d, 2000, persistCfg)
	kv.ResetCounts()
	for i := 2000; i < 2010; i++ {
		if err := x.Add(uint64(i), d.vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	x.Delete(3)
	x.Delete(4)
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	// 10 new nodes, their back-linked neighbours, the repaired neighbours of
	// 3 and 4, one header: a few hundred at most, never the whole graph.
	t.Logf("incremental save: %d puts, %d deletes", kv.Puts, kv.Deletes)
	if kv.Puts < 11 || kv.Puts > 400 {
		t.Fatalf("incremental save wrote %d nodes, want between 11 and 400 of 2008", kv.Puts)
	}
	if kv.Deletes != 4 || kv.Get(nodeKey(3)) != nil || kv.Get(codeKey(3)) != nil {
		t.Fatalf("deletes %d (want 2 nodes and their codes), node 3 still stored: %v", kv.Deletes, kv.Get(nodeKey(3)) != nil)
	}
	for i := 2010; i < 2100; i++ {
		delete(src, uint64(i))
	}
	delete(src, 3)
	delete(src, 4)
	y, st := mustLoad(t, kv, d.dim, persistCfg, src)
	if st.Rebuilt || st.Inserted != 0 || st.Removed != 0 || y.Len() != 2008 {
		t.Fatalf("load after incremental save: %+v, len %d", st, y.Len())
	}
}

// checkReconciled checks a load that reconciled a saved graph with a
// source that lost ids 0..99 and moved id 500 to d.vecs[2100]: its stats
// are want with some links repaired, the removed ids are gone, 500 is found
// at its new place, and recall@10 holds.
func checkReconciled(t *testing.T, y *Index, d *dataset, st, want LoadStats) {
	t.Helper()
	want.Repaired = st.Repaired
	if st != want || st.Repaired == 0 {
		t.Fatalf("stats %+v, want %+v with Repaired > 0", st, want)
	}
	for i := uint64(0); i < 100; i++ {
		if y.Has(i) {
			t.Fatalf("removed id %d still present", i)
		}
	}
	if rs, _ := y.SearchEf(d.vecs[2100], 2, 64); len(rs) < 2 || !slices.Contains([]uint64{rs[0].ID, rs[1].ID}, 500) {
		t.Fatalf("changed vector of id 500 not found at its new place: %v", rs)
	}
	if r := recall(truth(t, y, d.queries, 10), searchAll(t, y, d.queries, 10, 64)); r < 0.9 {
		t.Fatalf("recall after reconcile %.3f", r)
	}
}

func TestLoadReconciles(t *testing.T) {
	d := clustered(2200, 50, 24, 10, 23)
	src := sourceOf(d)
	_, kv := savedPrefix(t, d, 2000, persistCfg)
	// Since the save: 200 vectors added (2000..2199), 100 removed (0..99),
	// one changed in place (id 500), none of it saved.
	for i := uint64(0); i < 100; i++ {
		delete(src, i)
	}
	src[500] = d.vecs[2100]
	y, st := mustLoad(t, kv, d.dim, persistCfg, src)
	checkReconciled(t, y, d, st, LoadStats{Vectors: 2100, Nodes: 2000, Inserted: 201, Removed: 100})
	kv.ResetCounts()
	if err := y.Save(kv); err != nil {
		t.Fatal(err)
	}
	if kv.Deletes != 200 {
		t.Fatalf("save after reconcile deleted %d records, want 100 nodes and their codes", kv.Deletes)
	}
	if _, st := mustLoad(t, kv, d.dim, persistCfg, src); st != (LoadStats{Vectors: 2100, Nodes: 2100}) {
		t.Fatalf("second load %+v, want clean", st)
	}
}

func TestLoadRebuildsBadGraph(t *testing.T) {
	d := clustered(1500, 30, 16, 8, 24)
	src := sourceOf(d)
	fresh := func() *indextest.KV {
		kv := indextest.NewKV()
		if err := mustBuild(t, d, persistCfg).Save(kv); err != nil {
			t.Fatal(err)
		}
		return kv
	}
	cases := []struct {
		name   string
		mutate func(kv *indextest.KV)
		cfg    Config
		dim    int
		reason error
	}{
		{"missing", func(kv *indextest.KV) { clear(kv.M) }, persistCfg, 16, nil},
		{"flipped node byte", func(kv *indextest.KV) { kv.M[string(nodeKey(7))][3] ^= 0x40 }, persistCfg, 16, ErrCorrupt},
		{"truncated node", func(kv *indextest.KV) { k := string(nodeKey(8)); kv.M[k] = kv.M[k][:5] }, persistCfg, 16, ErrCorrupt},
		{"bad header", func(kv *indextest.KV) { kv.M["h"][9] ^= 1 }, persistCfg, 16, ErrCorrupt},
		{"link to self", func(kv *indextest.KV) { rewriteLink(kv, 9, 9) }, persistCfg, 16, ErrCorrupt},
		{"other metric", nil, Config{Seed: 5, ExactBelow: -1, Metric: Dot}, 16, ErrIncompatible},
		{"other M", nil, Config{Seed: 5, ExactBelow: -1, M: 8}, 16, ErrIncompatible},
		{"other version", func(kv *indextest.KV) { setHeaderVersion(kv, 99) }, persistCfg, 16, ErrIncompatible},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kv := fresh()
			if c.mutate != nil {
				c.mutate(kv)
			}
			kv.M["n-stale"] = []byte("ignored foreign key") // not ours: ignored
			y, st := mustLoad(t, kv, c.dim, c.cfg, src)
			if !st.Rebuilt || st.Inserted != 1500 || y.Len() != 1500 {
				t.Fatalf("stats %+v len %d, want a full rebuild", st, y.Len())
			}
			if (c.reason == nil) != (st.Reason == nil) || (c.reason != nil && !errors.Is(st.Reason, c.reason)) {
				t.Fatalf("reason %v, want %v", st.Reason, c.reason)
			}
			wantIDs := truth(t, y, d.queries, 10)
			if r := recall(wantIDs, searchAll(t, y, d.queries, 10, 64)); r < 0.9 {
				t.Fatalf("recall after rebuild %.3f", r)
			}
			kv.M[string(nodeKey(1<<40))] = []byte("stale node of another build")
			if err := y.Save(kv); err != nil {
				t.Fatal(err)
			}
			if kv.Get(nodeKey(1<<40)) != nil {
				t.Fatal("save after rebuild kept a stale node")
			}
			if _, st := mustLoad(t, kv, c.dim, c.cfg, src); st.Rebuilt || st.Inserted != 0 {
				t.Fatalf("load after rebuild+save: %+v", st)
			}
		})
	}
	if _, _, err := Load(indextest.NewKV(), 16, persistCfg, source{1: make([]float32, 3)}.seq()); !errors.Is(err, ErrDimensionMismatch) {
		t.Fatalf("short vector: %v", err)
	}
}

// rewriteLink makes node id's first layer-0 link point at target and fixes
// the record checksum, producing a well-formed but invalid graph.
func rewriteLink(kv *indextest.KV, id, target uint64) {
	v := kv.M[string(nodeKey(id))]
	binary.LittleEndian.PutUint64(v[1+4+2:], target)
	binary.LittleEndian.PutUint32(v[len(v)-4:], crcOf(v[:len(v)-4]))
}

func setHeaderVersion(kv *indextest.KV, ver uint16) {
	h := kv.M["h"]
	binary.LittleEndian.PutUint16(h[4:], ver)
	binary.LittleEndian.PutUint32(h[len(h)-4:], crcOf(h[:len(h)-4]))
}

// failKV fails every Put after the first okPuts.
type failKV struct {
	*indextest.KV
	okPuts int
}

func (k *failKV) Put(key, v []byte) error {
	if k.okPuts == 0 {
		return errors.New("disk full")
	}
	k.okPuts--
	return k.KV.Put(key, v)
}

func TestSaveErrorKeepsDirty(t *testing.T) {
	d := clustered(500, 0, 8, 4, 25)
	x := mustBuild(t, d, persistCfg)
	bad := &failKV{KV: indextest.NewKV(), okPuts: 100}
	if err := x.Save(bad); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("save into a failing kv: %v", err)
	}
	good := indextest.NewKV() // the failed transaction was rolled back: start again
	if err := x.Save(good); err != nil {
		t.Fatal(err)
	}
	if good.Puts != 1001 {
		t.Fatalf("save after a failed save wrote %d records, want all 1001 (codes, nodes, header)", good.Puts)
	}
	if _, st := mustLoad(t, good, 8, persistCfg, sourceOf(d)); st != (LoadStats{Vectors: 500, Nodes: 500}) {
		t.Fatalf("load %+v", st)
	}
}

// errKV fails ForEach, as a broken store would.
type errKV struct{ *indextest.KV }

func (errKV) ForEach(func(k, v []byte) error) error { return errors.New("io error") }

func TestLoadReturnsKVErrors(t *testing.T) {
	d := clustered(300, 0, 8, 4, 26)
	kv := indextest.NewKV()
	if err := mustBuild(t, d, persistCfg).Save(kv); err != nil {
		t.Fatal(err)
	}
	_, _, err := Load(errKV{kv}, 8, persistCfg, sourceOf(d).seq())
	if err == nil || !strings.Contains(err.Error(), "io error") || errors.Is(err, ErrCorrupt) {
		t.Fatalf("load over a failing kv: %v", err)
	}
}

func crcOf(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

// orderKV records the keys put into it.
type orderKV struct {
	*indextest.KV
	keys [][]byte
}

func (k *orderKV) Put(key, v []byte) error {
	k.keys = append(k.keys, bytes.Clone(key))
	return k.KV.Put(key, v)
}

// TestSavePutsInKeyOrder checks that Save puts its records in ascending key
// order (the header last), whatever order the ids were added in: bbolt
// appends such puts, while a put in the middle of a fresh bucket's one
// in-memory leaf moves every key after it (a million-node first save took
// 1,300 s).
func TestSavePutsInKeyOrder(t *testing.T) {
	d := clustered(600, 0, 8, 4, 27)
	x := New(d.dim, persistCfg)
	perm := rand.New(rand.NewPCG(27, 28)).Perm(len(d.vecs))
	for _, i := range perm[:500] { // ids out of order, slots in insertion order
		if err := x.Add(uint64(i), d.vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	kv := &orderKV{KV: indextest.NewKV()}
	checkAscending := func(what string, want int) {
		t.Helper()
		if len(kv.keys) != want || string(kv.keys[len(kv.keys)-1]) != "h" {
			t.Fatalf("%s: %d puts, the last %q; want %d, the header last", what, len(kv.keys), kv.keys[len(kv.keys)-1], want)
		}
		for i := 1; i < len(kv.keys)-1; i++ {
			if bytes.Compare(kv.keys[i-1], kv.keys[i]) >= 0 {
				t.Fatalf("%s: put %d (%x) after %x", what, i, kv.keys[i], kv.keys[i-1])
			}
		}
	}
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	checkAscending("first save", 1001)
	kv.keys = nil
	for _, i := range perm[500:] {
		if err := x.Add(uint64(i), d.vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Save(kv); err != nil {
		t.Fatal(err)
	}
	checkAscending("second save", len(kv.keys))
	if len(kv.keys) < 201 {
		t.Fatalf("second save wrote %d records, want at least the 100 new codes and nodes", len(kv.keys))
	}
}
