package rerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// published reads testdata/name and returns it compacted: the bytes a
// client speaking that format must send (testdata/README.md cites each).
func published(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.Bytes()
}

// exampleScores reads the scores out of a published answer by index,
// independently of the client's decoder.
func exampleScores(t *testing.T, answer []byte, n int) []float64 {
	t.Helper()
	var list []map[string]any
	var wrapped map[string]json.RawMessage
	if err := json.Unmarshal(answer, &list); err != nil {
		if err := json.Unmarshal(answer, &wrapped); err != nil {
			t.Fatal(err)
		}
		raw := cmpOr(wrapped["results"], wrapped["data"])
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
	}
	scores := make([]float64, n)
	for _, e := range list {
		s, ok := e["relevance_score"].(float64)
		if !ok {
			s = e["score"].(float64)
		}
		scores[int(e["index"].(float64))] = s
	}
	return scores
}

func cmpOr(a, b json.RawMessage) json.RawMessage {
	if a != nil {
		return a
	}
	return b
}

// TestPublishedExamples: for each provider the client posts the published
// request byte for byte and reads the published answer into one score per
// document, in the documents' order.
func TestPublishedExamples(t *testing.T) {
	for _, tc := range []struct{ name, format, path, request, answer string }{
		{"cohere v2", Cohere, "/v2/rerank", "cohere_request.json", "cohere_response.json"},
		{"cohere v1", Cohere, "/v1/rerank", "cohere_request.json", "cohere_response.json"},
		{"jina", Jina, "/v1/rerank", "jina_request.json", "jina_response.json"},
		{"llama.cpp", Jina, "/v1/rerank", "jina_request.json", "llamacpp_response.json"},
		{"tei", TEI, "/rerank", "tei_request.json", "tei_response.json"},
		{"voyage", Voyage, "/v1/rerank", "voyage_request.json", "voyage_response.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, answer := published(t, tc.request), published(t, tc.answer)
			var req struct {
				Model, Query     string
				Documents, Texts []string
			}
			if err := json.Unmarshal(want, &req); err != nil {
				t.Fatal(err)
			}
			docs := append(req.Documents, req.Texts...)
			u := fakeService(t, tc.path, string(want), string(answer), http.StatusOK)
			c := &Client{URL: u, Model: req.Model, Format: tc.format, APIKey: "k3y"}
			got, err := c.Rerank(context.Background(), req.Query, docs)
			if err != nil {
				t.Fatal(err)
			}
			if want := exampleScores(t, answer, len(docs)); !slices.Equal(got, want) {
				t.Errorf("scores = %v, want %v", got, want)
			}
		})
	}
}

// TestErrorBodies: a 4xx with the provider's JSON error is an error that
// carries the status and the provider's message.
func TestErrorBodies(t *testing.T) {
	var cases map[string][2]json.RawMessage
	if err := json.Unmarshal(published(t, "errors.json"), &cases); err != nil {
		t.Fatal(err)
	}
	for format, c := range cases {
		var status int
		if err := json.Unmarshal(c[0], &status); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(c[1])
		}))
		cl := &Client{URL: srv.URL + "/x/rerank", Format: format, Model: "m"}
		_, err := cl.Rerank(context.Background(), "q", docs)
		srv.Close()
		var msg map[string]any
		json.Unmarshal(c[1], &msg)
		text := fmt.Sprint(cmpAny(msg["error"], msg["message"], msg["detail"]))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(status)) || !strings.Contains(err.Error(), text) {
			t.Errorf("%s %d: err = %v, want the status and %q", format, status, err, text)
		}
	}
}

func cmpAny(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// TestBadAnswersEachFormat: wrong-length, out-of-range and repeated
// indexes are ErrMalformed in every format's answer shape.
func TestBadAnswersEachFormat(t *testing.T) {
	wrap := map[string]func(string) string{
		Cohere: func(l string) string { return `{"id":"x","results":` + l + `}` },
		Jina:   func(l string) string { return `{"model":"m","results":` + l + `}` },
		Voyage: func(l string) string { return `{"object":"list","data":` + l + `}` },
		TEI:    func(l string) string { return strings.ReplaceAll(l, "relevance_score", "score") },
	}
	for format, w := range wrap {
		for name, list := range map[string]string{
			"too few":      `[{"index":0,"relevance_score":0.9},{"index":1,"relevance_score":0.2}]`,
			"too many":     `[{"index":0,"relevance_score":0.9},{"index":1,"relevance_score":0.2},{"index":2,"relevance_score":0.1},{"index":3,"relevance_score":0.1}]`,
			"out of range": `[{"index":0,"relevance_score":0.9},{"index":3,"relevance_score":0.2},{"index":1,"relevance_score":0.1}]`,
			"negative":     `[{"index":0,"relevance_score":0.9},{"index":-1,"relevance_score":0.2},{"index":1,"relevance_score":0.1}]`,
			"repeated":     `[{"index":0,"relevance_score":0.9},{"index":0,"relevance_score":0.2},{"index":1,"relevance_score":0.1}]`,
		} {
			srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				io.WriteString(rw, w(list))
			}))
			c := &Client{URL: srv.URL + "/rerank", Format: format}
			if _, err := c.Rerank(context.Background(), "q", docs); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s, %s: err = %v, want ErrMalformed", format, name, err)
			}
			srv.Close()
		}
	}
}

// TestSlowAnswer: a service that answers after the caller's deadline
// leaves Rerank at the deadline with the context's error.
func TestSlowAnswer(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := (&Client{URL: srv.URL + "/v1/rerank"}).Rerank(ctx, "q", docs)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Rerank returned after %v, want about 100ms", d)
	}
}

// TestTEIBatches: TEI is sent at most TEIBatch texts a request (its
// default --max-client-batch-size refuses more) and the scores of the
// batches come back in the documents' order.
func TestTEIBatches(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Texts []string }
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		sizes = append(sizes, len(req.Texts))
		mu.Unlock()
		if len(req.Texts) > TEIBatch {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, `{"error":"batch size too large","error_type":"validation"}`)
			return
		}
		var out []string
		for i, text := range req.Texts {
			var n int
			fmt.Sscanf(text, "doc %d", &n)
			out = append(out, fmt.Sprintf(`{"index":%d,"score":%d}`, i, n))
		}
		io.WriteString(w, "["+strings.Join(out, ",")+"]")
	}))
	defer srv.Close()
	many := make([]string, 70)
	want := make([]float64, len(many))
	for i := range many {
		many[i], want[i] = fmt.Sprintf("doc %d", i), float64(i)
	}
	got, err := (&Client{URL: srv.URL + "/rerank"}).Rerank(context.Background(), "q", many)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("scores = %v, want %v", got, want)
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{6, 32, 32}) {
		t.Errorf("request sizes %v, want 32, 32 and 6", sizes)
	}
}

// TestNameHidesSecrets: the name logged, shown and recorded has no user,
// password or query of the URL.
func TestNameHidesSecrets(t *testing.T) {
	c := &Client{URL: "https://bob:pa55@rerank.example.org/v1/rerank?key=s3cret#x", Model: "m"}
	if got, want := c.Name(), "jina:m@https://rerank.example.org/v1/rerank"; got != want {
		t.Errorf("Name() = %q, want %q", got, want)
	}
}
