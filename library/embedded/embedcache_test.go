package embedded

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store"
)

const cacheDims = 8

var cacheID = embed.Identity{Provider: "fake", Model: "m1", Dimensions: cacheDims}

// countingEmbedder is a deterministic embedder that counts how often each
// text was answered (paid for). Calls numbered from failFrom on fail, or
// block until their context ends when block is set.
type countingEmbedder struct {
	mu       sync.Mutex
	calls    int
	answered map[string]int
	failFrom int // 0: never
	block    bool
	started  chan int // receives the number of each call, if non-nil
	panicky  bool
	short    bool
}

func (f *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	fail := f.failFrom > 0 && n >= f.failFrom
	f.mu.Unlock()
	if f.started != nil {
		f.started <- n
	}
	if f.panicky {
		panic("boom")
	}
	if fail && f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if fail {
		return nil, errors.New("server says no")
	}
	out := make([][]float32, len(texts))
	f.mu.Lock()
	for i, t := range texts {
		out[i] = fakeVec(t)
		if f.answered == nil {
			f.answered = map[string]int{}
		}
		f.answered[t]++
	}
	f.mu.Unlock()
	if f.short {
		out = out[:len(out)-1]
	}
	return out, nil
}

func fakeVec(t string) []float32 {
	v := make([]float32, cacheDims)
	for i := range v {
		v[i] = float32(len(t)%7+i) + 0.5
	}
	v[0] = float32(len(t))
	if len(t) > 0 {
		v[1] = float32(t[len(t)-1])
	}
	return v
}

func (f *countingEmbedder) answeredCounts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.answered {
		out[k] = v
	}
	return out
}

// wantPaidOnce fails t unless the embedders, together, answered each of
// texts exactly once.
func wantPaidOnce(t *testing.T, texts []string, embedders ...*countingEmbedder) {
	t.Helper()
	paid := map[string]int{}
	for _, e := range embedders {
		for k, v := range e.answeredCounts() {
			paid[k] += v
		}
	}
	for _, tx := range texts {
		if paid[tx] != 1 {
			t.Fatalf("%q embedded %d times over all runs, want 1", tx, paid[tx])
		}
	}
}

func openCacheDB(tb testing.TB, path string) *store.DB {
	tb.Helper()
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func passages(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("passage number %d about topic %d", i, i%13)
	}
	return out
}

func TestEmbedCacheResumesAfterFailureAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.db")
	db := openCacheDB(t, path)
	texts := passages(95)
	bad := &countingEmbedder{failFrom: 4}
	c := NewEmbedCache(db, bad, cacheID, &library.EmbedCacheOptions{Batch: 10, Parallel: 1})
	if _, err := c.Embed(context.Background(), texts); err == nil || !strings.Contains(err.Error(), "server says no") {
		t.Fatalf("Embed with a failing server: err = %v, want its error", err)
	}
	if got, want := c.Stats().Batches, int64(3); got != want {
		t.Fatalf("committed batches = %d, want %d", got, want)
	}
	db.Close()

	// A new process: the cache is on disk.
	db = openCacheDB(t, path)
	good := &countingEmbedder{}
	c = NewEmbedCache(db, good, cacheID, &library.EmbedCacheOptions{Batch: 10, Parallel: 3})
	got, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range texts {
		if diff := cmp.Diff(fakeVec(tx), got[i]); diff != "" {
			t.Fatalf("vector %d (-want +got):\n%s", i, diff)
		}
	}
	wantPaidOnce(t, texts, bad, good)
	if st := c.Stats(); st.Cached != 30 || st.Embedded != 65 {
		t.Fatalf("stats = %+v, want 30 cached and 65 embedded", st)
	}
}

func TestEmbedCacheCancelledMidRunKeepsFinishedBatches(t *testing.T) {
	db := openCacheDB(t, filepath.Join(t.TempDir(), "lib.db"))
	texts := passages(200)
	started := make(chan int, 100)
	slow := &countingEmbedder{failFrom: 6, block: true, started: started}
	c := NewEmbedCache(db, slow, cacheID, &library.EmbedCacheOptions{Batch: 16, Parallel: 3})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Embed(ctx, texts)
		done <- err
	}()
	for n := range started {
		if n == 6 {
			break
		}
	}
	// Calls 1-5 have returned or are about to; give them time to commit.
	deadline := time.Now().Add(10 * time.Second)
	for c.Stats().Batches < 5 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	go func() {
		for range started {
		}
	}()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed after cancel: err = %v, want context.Canceled", err)
	}
	close(started)
	if n, err := c.Len(); err != nil || n != 5*16 {
		t.Fatalf("cache holds %d vectors (err %v), want %d", n, err, 5*16)
	}
	good := &countingEmbedder{}
	c2 := NewEmbedCache(db, good, cacheID, &library.EmbedCacheOptions{Batch: 16, Parallel: 3})
	if _, err := c2.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	wantPaidOnce(t, texts, slow, good)
}

func TestEmbedCacheKeysIncludeIdentityAndDedupe(t *testing.T) {
	db := openCacheDB(t, filepath.Join(t.TempDir(), "lib.db"))
	f := &countingEmbedder{}
	c := NewEmbedCache(db, f, cacheID, nil)
	texts := []string{"alpha", "beta", "alpha", "gamma", "beta"}
	got, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fakeVec("alpha"), got[2]); diff != "" {
		t.Fatalf("duplicate text got another vector: %s", diff)
	}
	if diff := cmp.Diff(map[string]int{"alpha": 1, "beta": 1, "gamma": 1}, f.answeredCounts()); diff != "" {
		t.Fatalf("answered (-want +got):\n%s", diff)
	}
	// Another model never sees these vectors.
	other := cacheID
	other.Model = "m2"
	c2 := NewEmbedCache(db, f, other, nil)
	if _, err := c2.Embed(context.Background(), []string{"alpha"}); err != nil {
		t.Fatal(err)
	}
	if got := f.answeredCounts()["alpha"]; got != 2 {
		t.Fatalf("alpha answered %d times, want 2 (once per model)", got)
	}
	// The same identity is served from the cache.
	if _, err := c.Embed(context.Background(), []string{"gamma", "alpha"}); err != nil {
		t.Fatal(err)
	}
	if got := f.answeredCounts()["gamma"]; got != 1 {
		t.Fatalf("gamma answered %d times, want 1", got)
	}
}

func TestEmbedCacheForgetAndClear(t *testing.T) {
	db := openCacheDB(t, filepath.Join(t.TempDir(), "lib.db"))
	if err := db.SetEmbedder(store.EmbedderInfo(cacheID)); err != nil {
		t.Fatal(err)
	}
	c := NewEmbedCache(db, &countingEmbedder{}, cacheID, nil)
	texts := []string{"one passage", "two passage", "three"}
	if _, err := c.Embed(context.Background(), append(texts, "left over")); err != nil {
		t.Fatal(err)
	}
	if err := c.Forget(texts); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Len(); err != nil || n != 1 {
		t.Fatalf("after Forget: %d entries (err %v), want 1", n, err)
	}
	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Len(); err != nil || n != 0 {
		t.Fatalf("after Clear: %d entries (err %v), want 0", n, err)
	}
}

func TestEmbedCacheBadEmbedderIsAnError(t *testing.T) {
	db := openCacheDB(t, filepath.Join(t.TempDir(), "lib.db"))
	for name, f := range map[string]*countingEmbedder{"panic": {panicky: true}, "short": {short: true}} {
		c := NewEmbedCache(db, f, cacheID, &library.EmbedCacheOptions{Batch: 2})
		if _, err := c.Embed(context.Background(), passages(5)); !errors.Is(err, ErrEmbedCache) {
			t.Errorf("%s: err = %v, want ErrEmbedCache", name, err)
		}
		if n, _ := c.Len(); n != 0 {
			t.Errorf("%s: %d entries cached from a bad embedder", name, n)
		}
	}
}

// latencyEmbedder answers after a fixed delay, like a remote server.
type latencyEmbedder struct {
	dims    int
	latency time.Duration
}

func (l latencyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-time.After(l.latency):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([][]float32, len(texts))
	for i := range out {
		v := make([]float32, l.dims)
		for j := range v {
			v[j] = float32(i+j) + 1
		}
		out[i] = v
	}
	return out, nil
}

// BenchmarkEmbedCache measures what committing every batch costs (fsync
// included) against embedding without the cache, for 2,048 passages of
// 1,536 dimensions from a server with 50 ms per request, and a fully
// resumed run (every vector from the cache).
func BenchmarkEmbedCache(b *testing.B) {
	const n, dims = 2048, 1536
	texts := passages(n)
	inner := latencyEmbedder{dims: dims, latency: 50 * time.Millisecond}
	id := embed.Identity{Provider: "fake", Model: "m", Dimensions: dims}
	for _, batch := range []int{64, 256} {
		b.Run(fmt.Sprintf("direct/batch=%d", batch), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var wg sync.WaitGroup
				sem := make(chan struct{}, 4)
				for i := 0; i < n; i += batch {
					sem <- struct{}{}
					wg.Go(func() {
						defer func() { <-sem }()
						inner.Embed(context.Background(), texts[i:min(n, i+batch)])
					})
				}
				wg.Wait()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "passages/s")
		})
		b.Run(fmt.Sprintf("cold/batch=%d", batch), func(b *testing.B) {
			db, err := store.Open(filepath.Join(b.TempDir(), "lib.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			c := NewEmbedCache(db, inner, id, &library.EmbedCacheOptions{Batch: batch, Parallel: 4})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := c.Clear(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "passages/s")
		})
	}
	b.Run("resumed", func(b *testing.B) {
		db, err := store.Open(filepath.Join(b.TempDir(), "lib.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		c := NewEmbedCache(db, inner, id, nil)
		if _, err := c.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Embed(context.Background(), texts); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "passages/s")
	})
}
