package weaviate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
)

const passagesPerDoc = 4

func clusterDoc(i int) fixture {
	texts := make([]string, passagesPerDoc)
	for j := range texts {
		texts[j] = fmt.Sprintf("document %d passage %d about topic%d and word%d", i, j, i%7, j)
	}
	return testDoc(fmt.Sprintf("d%03d", i), fmt.Sprintf("/lib/d%03d.pdf", i), i, texts...)
}

// TestClusterSurvivesNodeLoss runs three nodes with replication factor 3,
// kills one during a search load and an ingest, and checks that searches
// keep answering, no acknowledged write is lost, and the node catches up
// after it rejoins. -short skips it.
func TestClusterSurvivesNodeLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the three-node cluster test in -short mode")
	}
	t0 := time.Now()
	c := weaviatetest.Start(t, weaviatetest.Options{Nodes: 3})
	t.Logf("three nodes ready in %v", time.Since(t0).Round(time.Millisecond))
	// A short client timeout: a write caught by the kill can wait on the
	// dead replica, and PutDocument is safe to repeat.
	opts := &weaviate.Options{Replicas: 3, AsyncReplication: true, HTTPClient: &http.Client{Timeout: 8 * time.Second}}
	b0 := mustOpen(t, c, 0, "Cluster", opts)
	b1 := mustOpen(t, c, 1, "Cluster", opts)
	const seeded, total = 10, 40
	for i := range seeded {
		put(t, b0, clusterDoc(i), nil)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stop := make(chan struct{})
	load := startSearchLoad(ctx, stop, b0, b1)
	acked := make(chan int, total)
	go ingest(ctx, t, b0, seeded, total, acked)
	// Kill node 2 once the ingest is under way.
	ackedDocs := seq(seeded)
	for range 5 {
		ackedDocs = append(ackedDocs, <-acked)
	}
	t1 := time.Now()
	c.Kill(2)
	t.Logf("node2 killed after 5 acknowledged puts")
	for i := range acked {
		ackedDocs = append(ackedDocs, i)
	}
	t.Logf("ingest finished %v after the kill", time.Since(t1).Round(time.Millisecond))
	time.Sleep(time.Second) // a little more search load with the node down
	close(stop)
	st := load.wait()
	t.Logf("search load: %d answered, %d failed (%v)", st.ok, st.failed, st.firstErr)
	if st.failed > 0 || st.ok < 10 {
		t.Errorf("searches with one node down: %d answered, %d failed; first error: %v", st.ok, st.failed, st.firstErr)
	}
	if len(ackedDocs) != total {
		t.Errorf("%d of %d puts acknowledged (3 tries each) with one node of three down", len(ackedDocs)-seeded, total-seeded)
	}
	checkDocs(t, b1, ackedDocs)

	t2 := time.Now()
	c.Restart(2)
	t.Logf("node2 rejoined in %v", time.Since(t2).Round(time.Millisecond))
	// Each class repairs on its own schedule: wait for both.
	want := len(ackedDocs) * passagesPerDoc
	waitCaughtUp(t, c.Nodes[0].Addr(), c.Nodes[2].Addr(), "node2", "ClusterPassage", want, 60*time.Second)
	waitCaughtUp(t, c.Nodes[0].Addr(), c.Nodes[2].Addr(), "node2", "ClusterDocument", len(ackedDocs), 60*time.Second)
	t.Logf("node2 caught up (%d passages, %d documents) %v after it restarted; whole test %v", want, len(ackedDocs), time.Since(t2).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	// Reads at ONE through the rejoined node see its own replica.
	b2 := mustOpen(t, c, 2, "Cluster", &weaviate.Options{Consistency: weaviate.One})
	checkDocs(t, b2, ackedDocs)
}

// ingest puts documents first..last-1 through b, trying each up to three
// times, and sends the acknowledged ones on acked, which it closes.
func ingest(ctx context.Context, t *testing.T, b *weaviate.Collection, first, last int, acked chan<- int) {
	defer close(acked)
	for i := first; i < last; i++ {
		f := clusterDoc(i)
		for try := 1; try <= 3; try++ {
			_, err := b.PutDocument(ctx, f.d, f.chunks, f.vecs, nil)
			if err == nil {
				acked <- i
				break
			}
			t.Logf("put %s, try %d (not acknowledged): %v", f.d.ID, try, err)
		}
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// checkDocs reads every document in docs with all its passages through b.
func checkDocs(t *testing.T, b *weaviate.Collection, docs []int) {
	t.Helper()
	ctx := context.Background()
	for _, i := range docs {
		f := clusterDoc(i)
		d, err := b.DocumentInfo(ctx, f.d.ID)
		if err != nil {
			t.Errorf("acknowledged document %s: %v", f.d.ID, err)
			continue
		}
		cs, err := b.Chunks(ctx, d.Chunks)
		if err != nil || len(cs) != passagesPerDoc {
			t.Errorf("acknowledged document %s: %d passages, %v; want %d", f.d.ID, len(cs), err, passagesPerDoc)
		}
	}
	if list, err := b.Documents(ctx); err != nil || len(list) != len(docs) {
		t.Errorf("Documents: %d, %v; want %d", len(list), err, len(docs))
	}
	st, err := b.Stats(ctx)
	if err != nil || st.Documents != len(docs) || st.Chunks != len(docs)*passagesPerDoc {
		t.Errorf("Stats = %+v, %v; want %d documents", st, err, len(docs))
	}
}

type loadStats struct {
	ok, failed int64
	firstErr   error
}

type searchLoad struct {
	wg  sync.WaitGroup
	ok  atomic.Int64
	bad atomic.Int64
	mu  sync.Mutex
	err error
}

// startSearchLoad runs one hybrid searcher per backend until stop closes,
// ctx ends, or each has run 2000 searches.
func startSearchLoad(ctx context.Context, stop <-chan struct{}, bs ...*weaviate.Collection) *searchLoad {
	l := &searchLoad{}
	for n, b := range bs {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := range 2000 {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				default:
				}
				q := weaviate.HybridQuery{Text: fmt.Sprintf("topic%d word%d", i%7, n), Vector: axis(i), Limit: 10, Alpha: 0.5}
				if _, err := b.Hybrid(ctx, q); err != nil {
					l.bad.Add(1)
					l.mu.Lock()
					if l.err == nil {
						l.err = err
					}
					l.mu.Unlock()
					continue
				}
				l.ok.Add(1)
			}
		}()
	}
	return l
}

func (l *searchLoad) wait() loadStats {
	l.wg.Wait()
	return loadStats{ok: l.ok.Load(), failed: l.bad.Load(), firstErr: l.err}
}

// waitCaughtUp polls until node (reached at addr) holds every object of
// class that the node at from lists, reading its local replica only
// (node_name); it fails after timeout.
func waitCaughtUp(t *testing.T, from, addr, node, class string, want int, timeout time.Duration) {
	t.Helper()
	ids, err := objectIDs(from, class)
	if err != nil || len(ids) != want {
		t.Fatalf("list %s objects: %d, %v; want %d", class, len(ids), err, want)
	}
	start, missing := time.Now(), -1
	for deadline := start.Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		n := 0
		for _, id := range ids {
			if !onNode(addr, node, class, id) {
				n++
			}
		}
		if n != missing {
			t.Logf("%v after restart: %s lacks %d of %d %s objects", time.Since(start).Round(100*time.Millisecond), node, n, len(ids), class)
		}
		if missing = n; n == 0 {
			return
		}
	}
	t.Errorf("%s still lacks %d %s objects %v after rejoining", node, missing, class, timeout)
}

func objectIDs(addr, class string) ([]string, error) {
	resp, err := http.Get("http://" + addr + "/v1/objects?class=" + class + "&limit=1000")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var list struct {
		Objects []struct {
			ID string `json:"id"`
		} `json:"objects"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		return nil, err
	}
	ids := make([]string, len(list.Objects))
	for i, o := range list.Objects {
		ids[i] = o.ID
	}
	return ids, nil
}

func onNode(addr, node, class, id string) bool {
	resp, err := http.Get("http://" + addr + "/v1/objects/" + class + "/" + id + "?node_name=" + node)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
