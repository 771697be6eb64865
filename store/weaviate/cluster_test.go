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

	"github.com/mcpvec/mcpvec/store/weaviate"
	"github.com/mcpvec/mcpvec/store/weaviate/weaviatetest"
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
	opts := &weaviate.Options{Replicas: 3, AsyncReplication: true}
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
	ingestDone := make(chan error, 1)
	go func() {
		defer close(acked)
		for i := seeded; i < total; i++ {
			f := clusterDoc(i)
			if _, err := b0.PutDocument(ctx, f.d, f.chunks, f.vecs, nil); err != nil {
				t.Logf("put %s (not acknowledged): %v", f.d.ID, err)
				continue
			}
			acked <- i
		}
		ingestDone <- nil
	}()
	// Kill node 2 once the ingest is under way.
	for n := 0; n < 5; n++ {
		<-acked
	}
	t1 := time.Now()
	c.Kill(2)
	t.Logf("node2 killed after 5 acknowledged puts; kill took %v", time.Since(t1).Round(time.Millisecond))
	ackedDocs := []int{seeded, seeded + 1, seeded + 2, seeded + 3, seeded + 4}
	for i := range acked {
		ackedDocs = append(ackedDocs, i)
	}
	<-ingestDone
	time.Sleep(time.Second) // a little more search load with the node down
	close(stop)
	st := load.wait()
	t.Logf("search load: %d answered, %d failed (%v)", st.ok, st.failed, st.firstErr)
	if st.failed > 0 || st.ok < 10 {
		t.Errorf("searches with one node down: %d answered, %d failed; first error: %v", st.ok, st.failed, st.firstErr)
	}
	if len(ackedDocs) != total-seeded {
		t.Errorf("%d of %d puts acknowledged with one node of three down", len(ackedDocs), total-seeded)
	}
	checkDocs(t, b1, append(seq(seeded), ackedDocs...))

	t2 := time.Now()
	c.Restart(2)
	t.Logf("node2 rejoined in %v", time.Since(t2).Round(time.Millisecond))
	want := (seeded + len(ackedDocs)) * passagesPerDoc
	waitObjectCount(t, c.Nodes[2].Addr(), "node2", "ClusterPassage", want, 90*time.Second)
	t.Logf("node2 caught up (%d passages) %v after it rejoined; whole test %v", want, time.Since(t2).Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	b2 := mustOpen(t, c, 2, "Cluster", &weaviate.Options{Consistency: weaviate.One})
	checkDocs(t, b2, append(seq(seeded), ackedDocs...))
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// checkDocs reads every document in docs with all its passages through b.
func checkDocs(t *testing.T, b *weaviate.Backend, docs []int) {
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
func startSearchLoad(ctx context.Context, stop <-chan struct{}, bs ...*weaviate.Backend) *searchLoad {
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

// waitObjectCount polls /v1/nodes on addr until node's shards of class hold
// want objects, failing after timeout.
func waitObjectCount(t *testing.T, addr, node, class string, want int, timeout time.Duration) {
	t.Helper()
	var got int64
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		got = objectCount(addr, node, class)
		if got == int64(want) {
			return
		}
	}
	t.Errorf("%s holds %d %s objects %v after rejoining, want %d", node, got, class, timeout, want)
}

func objectCount(addr, node, class string) int64 {
	resp, err := http.Get("http://" + addr + "/v1/nodes/" + class + "?output=verbose")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var nodes struct {
		Nodes []struct {
			Name   string `json:"name"`
			Shards []struct {
				Class       string `json:"class"`
				ObjectCount int64  `json:"objectCount"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	if json.NewDecoder(resp.Body).Decode(&nodes) != nil {
		return -1
	}
	var n int64
	for _, nd := range nodes.Nodes {
		for _, s := range nd.Shards {
			if nd.Name == node && s.Class == class {
				n += s.ObjectCount
			}
		}
	}
	return n
}
