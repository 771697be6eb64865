package library_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

// kiwiReranker scores a passage by how many times it says "kiwi", after an
// optional delay, and records what it was sent. Safe for concurrent use.
type kiwiReranker struct {
	mu    sync.Mutex
	sent  [][]string
	delay time.Duration // ignored ctx: a reranker that hangs
	err   error
	short bool // answer one score too few
}

func (k *kiwiReranker) Name() string { return "kiwi" }

func (k *kiwiReranker) Rerank(_ context.Context, _ string, docs []string) ([]float64, error) {
	k.mu.Lock()
	k.sent = append(k.sent, docs)
	k.mu.Unlock()
	time.Sleep(k.delay)
	if k.err != nil {
		return nil, k.err
	}
	scores := make([]float64, len(docs))
	for i, d := range docs {
		scores[i] = float64(strings.Count(d, "kiwi"))
	}
	if k.short {
		scores = scores[1:]
	}
	return scores, nil
}

// rerankFixture holds six passages of one document that BM25 ranks p1..p6
// for "apple" (fewer apples, more kiwis down the list), and returns their
// ids in that first-stage order.
func rerankFixture(t *testing.T) (*fixture, []string) {
	f := newFixture(t, library.Options{Mode: library.Lexical})
	var pages []string
	for i := range 6 {
		pages = append(pages, strings.TrimSpace(strings.Repeat("apple ", 6-i)+strings.Repeat("kiwi ", i)))
	}
	f.Add(t, "fruit", "Fruit notes", "text/plain", "", pages...)
	return f, searchIDs(t, f.Lib, "apple")
}

func searchIDs(t *testing.T, l *library.Library, query string) []string {
	t.Helper()
	resp, err := l.Search(context.Background(), query, library.SearchOptions{K: 6, Mode: library.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range resp.Results {
		ids = append(ids, r.ID)
	}
	return ids
}

func withReranker(f *fixture, rr library.Reranker, logs *bytes.Buffer, timeout time.Duration) *library.Library {
	return library.New(f.Lib.Backend(), nil, library.Options{Mode: library.Lexical,
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Rerank: library.RerankOptions{Reranker: rr, TopN: 3, Timeout: timeout}})
}

func TestRerankReordersTopNAndKeepsTheRest(t *testing.T) {
	f, first := rerankFixture(t)
	if len(first) != 6 {
		t.Fatalf("first stage = %v", first)
	}
	k := &kiwiReranker{}
	var logs bytes.Buffer
	got := searchIDs(t, withReranker(f, k, &logs, time.Second), "apple")
	want := append([]string{first[2], first[1], first[0]}, first[3:]...)
	if !slices.Equal(got, want) {
		t.Fatalf("reranked = %v, want %v (first stage %v)", got, want, first)
	}
	if len(k.sent) != 1 || len(k.sent[0]) != 3 || !strings.HasPrefix(k.sent[0][0], "Fruit notes\napple") {
		t.Fatalf("sent %q, want the 3 best passages with their title", k.sent)
	}
	// The same query again is answered from the score cache.
	if got := searchIDs(t, withReranker(f, k, &logs, time.Second), "apple"); !slices.Equal(got, want) || len(k.sent) != 2 {
		t.Fatalf("second library: %v, %d calls", got, len(k.sent))
	}
	l := withReranker(f, k, &logs, time.Second)
	searchIDs(t, l, "apple")
	searchIDs(t, l, "apple")
	if len(k.sent) != 3 {
		t.Fatalf("%d rerank calls, want 3 (the repeat cached)", len(k.sent))
	}
	if logs.Len() != 0 {
		t.Fatalf("warnings: %s", logs.String())
	}
}

func TestRerankFailureKeepsFirstStageOrder(t *testing.T) {
	f, first := rerankFixture(t)
	const deadline = 150 * time.Millisecond
	for name, k := range map[string]*kiwiReranker{
		"error":        {err: errors.New("connection refused")},
		"slow":         {delay: 2 * time.Second},
		"wrong length": {short: true},
	} {
		var logs bytes.Buffer
		start := time.Now()
		got := searchIDs(t, withReranker(f, k, &logs, deadline), "apple")
		took := time.Since(start)
		if !slices.Equal(got, first) {
			t.Errorf("%s: %v, want the first stage's %v", name, got, first)
		}
		if took > deadline+time.Second/2 {
			t.Errorf("%s: search took %v, deadline %v", name, took, deadline)
		}
		if n := strings.Count(logs.String(), "level=WARN"); n != 1 {
			t.Errorf("%s: %d warnings, want 1: %s", name, n, logs.String())
		}
	}
}

// TestRerankMarksResults: a reranked result carries the reranker's score
// and its first-stage rank; one past TopN, or a search whose rerank
// failed, carries neither.
func TestRerankMarksResults(t *testing.T) {
	f, first := rerankFixture(t)
	var logs bytes.Buffer
	search := func(k *kiwiReranker) []library.SearchResult {
		resp, err := withReranker(f, k, &logs, 150*time.Millisecond).Search(context.Background(), "apple", library.SearchOptions{K: 6})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Results
	}
	res := search(&kiwiReranker{})
	for i, r := range res {
		was := slices.Index(first, r.ID) + 1
		if i < 3 {
			if !r.Reranked || r.FirstRank != was || r.RerankScore != float64(strings.Count(r.Text, "kiwi")) {
				t.Errorf("result %d: reranked %v, first rank %d (want %d), score %v", i+1, r.Reranked, r.FirstRank, was, r.RerankScore)
			}
		} else if r.Reranked || r.FirstRank != 0 || r.RerankScore != 0 {
			t.Errorf("result %d past the top 3 marked: %+v", i+1, r)
		}
	}
	if res[0].FirstRank != 3 {
		t.Errorf("top result was %d in the first stage, want 3", res[0].FirstRank)
	}
	for _, r := range search(&kiwiReranker{err: errors.New("down")}) {
		if r.Reranked || r.FirstRank != 0 {
			t.Errorf("rerank failed but %s is marked", r.ID)
		}
	}
}
