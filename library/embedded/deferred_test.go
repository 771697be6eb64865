package embedded_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/index/vector"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// openLogged opens db with opts, its log (debug and up) kept in the
// returned buffer.
func openLogged(t *testing.T, db *store.DB, opts library.Options) (*library.Library, *bytes.Buffer) {
	t.Helper()
	var log bytes.Buffer
	opts.Logger = slog.New(slog.NewTextHandler(&syncWriter{w: &log}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	lib, err := embedded.Open(context.Background(), db, wordEmbedder, opts)
	if err != nil {
		t.Fatal(err)
	}
	return lib, &log
}

// deferredFixture is a saved library of four documents, open again in
// lexical mode (as the offline embedder's libraries are), so that its
// vector index is deferred.
func deferredFixture(t *testing.T) *fixture {
	return deferredFixtureWith(t, vector.DefaultConfig())
}

// deferredFixtureWith is deferredFixture with the vector index configured
// by ix.
func deferredFixtureWith(t *testing.T, ix vector.Config) *fixture {
	t.Helper()
	f := newFixture(t, library.Options{Index: ix})
	f.Add(t, "a", "a.txt", "text/plain", "", "Quantum chromodynamics describes quarks and gluons.")
	f.Add(t, "b", "b.txt", "text/plain", "", "Plate tectonics moves continents slowly.")
	f.Add(t, "c", "c.txt", "text/plain", "", "Photosynthesis turns sunlight into sugar.")
	f.Add(t, "d", "d.txt", "text/plain", "", "Glaciers carve valleys over millennia.")
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Lib, _ = openLogged(t, f.DB, library.Options{Mode: library.Lexical, Index: ix})
	if pending, begun := embedded.VectorsDeferred(f.Lib); !pending || begun {
		t.Fatalf("lexical open: vector load pending %v, begun %v; want deferred, not begun", pending, begun)
	}
	return f
}

// TestDeferredVectorsLexicalSearch: a lexical search, the default of the
// library, never loads the deferred vector index; a vector search waits
// for it and finds what the index holds.
func TestDeferredVectorsLexicalSearch(t *testing.T) {
	f := deferredFixture(t)
	wantFound(t, f.Lib, "continents tectonics", "b:0", library.Lexical)
	if _, begun := embedded.VectorsDeferred(f.Lib); begun {
		t.Fatal("a lexical search started the vector index load")
	}
	wantFound(t, f.Lib, "sunlight sugar photosynthesis", "c:0", library.Vector, library.Hybrid)
	if pending, _ := embedded.VectorsDeferred(f.Lib); pending {
		t.Fatal("vector index still pending after a vector search")
	}
	if st := f.Lib.IndexStats(context.Background()); st.VectorPassages != 4 || st.LexicalPassages != 4 {
		t.Fatalf("index stats %+v, want 4 passages in each", st)
	}
}

// TestDeferredVectorsRacingWrites: writes that land while the deferred
// vector index loads — one committed before its read transaction, an
// add, a removal and a replacement after it — are all in the index once
// it is loaded, a Save waits for the load so the graph it persists holds
// them, and the next open loads that graph without reconciling anything.
func TestDeferredVectorsRacingWrites(t *testing.T) {
	f := deferredFixture(t)
	read, release := make(chan struct{}), make(chan struct{})
	restore := embedded.SetDeferredRead(func() { close(read); <-release })
	defer restore()
	// This write's Apply queues it and starts the load, whose transaction
	// then sees it: it must be applied once.
	f.Add(t, "e", "e.txt", "text/plain", "", "Volcanoes erupt molten basalt.")
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("a write did not start the deferred vector load")
	}
	f.Add(t, "f", "f.txt", "text/plain", "", "Honeybees dance to share nectar locations.")
	if _, err := f.Lib.Remove(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
	f.Add(t, "c", "c.txt", "text/plain", "", "Tidal forces stretch distant moons.")
	saved := make(chan error, 1)
	go func() { saved <- f.Lib.Save(context.Background()) }()
	select {
	case err := <-saved:
		t.Fatalf("Save returned (%v) before the vector load it must persist ended", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
	restore()
	checkAfterRace(t, f.Lib)

	lib, log := openLogged(t, f.DB, library.Options{Mode: library.Hybrid})
	if s := log.String(); strings.Contains(s, "reconciled") {
		t.Errorf("the next open reconciled: the Save missed writes made during the deferred load:\n%s", s)
	}
	checkAfterRace(t, lib)
}

// TestScanWritesLeaveDeferredVectors: with a Scan index (the offline
// embedder's), writes to a library whose vector load is deferred — an
// add, a removal, a replacement, a Save — do not load the vector index.
// The index as stored lags the store, and a load reconciles it: the load a
// vector search starts in the same process, and the next open's. Both
// find the new passages by their vectors and neither the removed nor the
// replaced one.
func TestScanWritesLeaveDeferredVectors(t *testing.T) {
	ix := vector.DefaultConfig()
	ix.Scan = true
	for _, reopen := range []bool{false, true} {
		f := deferredFixtureWith(t, ix)
		f.Add(t, "e", "e.txt", "text/plain", "", "Volcanoes erupt molten basalt.")
		if _, err := f.Lib.Remove(context.Background(), "b"); err != nil {
			t.Fatal(err)
		}
		f.Add(t, "c", "c.txt", "text/plain", "", "Tidal forces stretch distant moons.")
		if err := f.Lib.Save(context.Background()); err != nil {
			t.Fatal(err)
		}
		if pending, begun := embedded.VectorsDeferred(f.Lib); !pending || begun { // a write starts a load before Apply returns
			t.Fatalf("after writes and a Save: vector load pending %v, begun %v; want it not begun", pending, begun)
		}
		lib := f.Lib
		if reopen {
			var log *bytes.Buffer
			lib, log = openLogged(t, f.DB, library.Options{Mode: library.Hybrid, Index: ix})
			if s := log.String(); !strings.Contains(s, "codes read from the stored vectors") {
				t.Errorf("the next open did not read the vectors the writes left out of the index:\n%s", s)
			}
		}
		wantFound(t, lib, "volcanoes erupt basalt", "e:0", library.Vector)
		wantFound(t, lib, "tidal forces moons", "c:0", library.Vector)
		h, err := lib.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !h.Consistent || h.Index.VectorPassages != 4 {
			t.Fatalf("reopened %v: %+v, want consistent with 4 vectors", reopen, h)
		}
		wantGone(t, lib)
	}
}

func checkAfterRace(t *testing.T, lib *library.Library) {
	t.Helper()
	h, err := lib.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !h.Consistent || h.Index.VectorPassages != 5 {
		t.Fatalf("after writes during the deferred load: %+v, want consistent with 5 vectors", h)
	}
	wantFound(t, lib, "volcanoes erupt basalt", "e:0", library.Vector)
	wantFound(t, lib, "honeybees dance nectar", "f:0", library.Vector)
	wantFound(t, lib, "tidal forces moons", "c:0", library.Vector)
	wantGone(t, lib)
}

// wantGone checks that vector searches find neither the removed passage b:0
// nor c's replaced text.
func wantGone(t *testing.T, lib *library.Library) {
	t.Helper()
	for _, q := range []string{"plate tectonics continents", "photosynthesis sunlight sugar"} {
		resp, err := lib.Search(context.Background(), q, library.SearchOptions{Mode: library.Vector, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range resp.Results {
			if r.ID == "b:0" || strings.Contains(r.Text, "Photosynthesis") {
				t.Errorf("vector search %q found removed or replaced passage %s", q, r.ID)
			}
		}
	}
}

// TestLiveLeavesDeferredVectors: a server's Live does not load the
// deferred index by itself, nor does a lexical search through it or
// LoadedIndexStats (which says it is deferred); a hybrid search does, waits
// for it and finds its passages.
func TestLiveLeavesDeferredVectors(t *testing.T) {
	f := deferredFixture(t)
	live := library.NewLive(f.Lib)
	ctx := context.Background()
	if _, err := live.Current().Search(ctx, "photosynthesis", library.SearchOptions{Mode: library.Lexical}); err != nil {
		t.Fatal(err)
	}
	st := live.Current().LoadedIndexStats(ctx)
	time.Sleep(50 * time.Millisecond) // room for a load started in the background to show
	if pending, begun := embedded.VectorsDeferred(f.Lib); !pending || begun {
		t.Fatalf("after start, a lexical search and LoadedIndexStats: pending %v, begun %v; want the load not begun", pending, begun)
	}
	if want := (library.IndexStats{LexicalPassages: 4, Dimensions: 64, VectorsDeferred: true}); st != want {
		t.Fatalf("LoadedIndexStats before the load: %+v, want %+v", st, want)
	}
	resp, err := live.Current().Search(ctx, "photosynthesis", library.SearchOptions{Mode: library.Hybrid, Debug: true})
	if err != nil {
		t.Fatal(err)
	}
	if pending, _ := embedded.VectorsDeferred(f.Lib); pending {
		t.Fatal("a hybrid search returned before the deferred vector index was loaded")
	}
	if n := embedded.VectorIndex(f.Lib).Len(); n != 4 {
		t.Fatalf("vector index holds %d passages, want 4", n)
	}
	if st, want := live.Current().LoadedIndexStats(ctx), (library.IndexStats{VectorPassages: 4, LexicalPassages: 4, Dimensions: 64}); st != want {
		t.Fatalf("LoadedIndexStats once loaded: %+v, want %+v", st, want)
	}
	found := false
	for _, r := range resp.Results {
		found = found || r.Retriever == "vector" || r.Retriever == "both"
	}
	if !found {
		t.Fatalf("hybrid search found nothing by its vectors: %+v", resp.Results)
	}
}

// syncWriter serialises writes: the deferred load logs from its goroutine.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestOverviewAgreesWithCheck: Overview, which counts from the store's
// totals and skips the record-by-record check, leaves a deferred vector
// index unloaded (and says so), reports what Check does on a consistent
// library once it is loaded, and finds a passage the indexes missed (a
// write stored but not indexed).
func TestOverviewAgreesWithCheck(t *testing.T) {
	f := deferredFixture(t)
	ctx := context.Background()
	o, err := f.Lib.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Index.VectorsDeferred || o.Index.VectorPassages != 0 || !o.Consistent || o.Index.LexicalPassages != 4 {
		t.Fatalf("overview of a library with its vectors deferred: %+v; want them left unloaded", o)
	}
	// A write starts the deferred load in the background (it is queued and
	// replayed on the loaded graph), so the overview above comes first.
	if _, err := f.Lib.Remove(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	c, err := f.Lib.Check(ctx) // loads the vector index
	if err != nil {
		t.Fatal(err)
	}
	if o, err = f.Lib.Overview(ctx); err != nil {
		t.Fatal(err)
	}
	// The load Check waited for saves its repair (b dropped from the
	// graph) after it ends, so the file may have grown in between.
	o.Stats.FileBytes, c.Stats.FileBytes = 0, 0
	if o.Stats != c.Stats || o.Index != c.Index || !o.Consistent || !c.Consistent || o.Problems != nil {
		t.Fatalf("overview %+v\ncheck    %+v", o, c)
	}
	if o.Stats.Chunks != 3 || o.Index.VectorPassages != 3 || o.Index.LexicalPassages != 3 {
		t.Fatalf("overview %+v, want 3 passages, vectors and index entries", o)
	}
	f.putDirect(t, "z", "Stored but never indexed.")
	if o, err = f.Lib.Overview(ctx); err != nil || o.Consistent || o.Writing || o.Stats.Chunks != 4 {
		t.Fatalf("overview after a write the indexes missed: %+v, %v; want 4 passages, inconsistent, no writes landing", o, err)
	}
}

// TestOverviewDuringWrites: a write is stored and then applied to the
// indexes; an Overview between the two (`mcpvec info` answered by a
// running ingest) must not call the library inconsistent: it waits for a
// reading between writes, or says that writes kept landing (Writing). On
// a loaded host it used to find none within its 200 ms wait, and call the
// library inconsistent (7-8 readings in 11k).
func TestOverviewDuringWrites(t *testing.T) {
	f := newFixture(t, library.Options{})
	stop := make(chan struct{})
	type seen struct {
		n, inconsistent int
		last            library.Health
		err             error
	}
	out := make(chan seen, 1)
	go func() {
		var s seen
		defer func() { out <- s }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			h, err := f.Lib.Overview(context.Background())
			if s.n++; err != nil {
				s.err = err
				return
			}
			if !h.Consistent && !h.Writing {
				s.inconsistent++
				s.last = h
			}
		}
	}()
	for i := range 300 {
		f.Add(t, fmt.Sprintf("d%d", i), "note", "text/plain", "", fmt.Sprintf("harbour lantern number %d was lit", i))
	}
	close(stop)
	s := <-out
	if s.err != nil || s.inconsistent > 0 {
		t.Fatalf("%d of %d overviews during writes were inconsistent (last %+v), err %v", s.inconsistent, s.n, s.last, s.err)
	}
	t.Logf("%d overviews during 300 writes, all consistent", s.n)
}
