package rerank

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// fakeService is a rerank service on 127.0.0.1 that checks the request
// body byte for byte and answers with a fixed body.
func fakeService(t *testing.T, path, wantBody, answer string, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.URL.Path != path {
			t.Errorf("%s %s, want POST %s", r.Method, r.URL.Path, path)
		}
		if string(body) != wantBody {
			t.Errorf("body\n %s\nwant\n %s", body, wantBody)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer k3y" {
			t.Errorf("Authorization = %q", got)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + path
}

var docs = []string{"Paris is in France.", "Berlin is in Germany.", "Rome is in Italy."}

func TestWireFormats(t *testing.T) {
	for _, tc := range []struct {
		name, path, format, body, answer string
	}{
		{"cohere v2", "/v2/rerank", Cohere,
			`{"model":"rerank-v3.5","query":"capital of France","top_n":3,"documents":["Paris is in France.","Berlin is in Germany.","Rome is in Italy."]}`,
			`{"id":"x","results":[{"index":0,"relevance_score":0.9},{"index":2,"relevance_score":0.2},{"index":1,"relevance_score":0.1}],"meta":{"api_version":{"version":"2"}}}`},
		{"jina / llama.cpp / vllm", "/v1/rerank", Jina,
			`{"model":"rerank-v3.5","query":"capital of France","top_n":3,"documents":["Paris is in France.","Berlin is in Germany.","Rome is in Italy."]}`,
			`{"model":"m","usage":{"total_tokens":9},"results":[{"index":1,"relevance_score":0.1,"document":{"text":"Berlin is in Germany."}},{"index":0,"relevance_score":0.9},{"index":2,"relevance_score":0.2}]}`},
		{"tei", "/rerank", TEI,
			`{"query":"capital of France","texts":["Paris is in France.","Berlin is in Germany.","Rome is in Italy."],"truncate":true}`,
			`[{"index":0,"score":0.9},{"index":2,"score":0.2},{"index":1,"score":0.1}]`},
		{"voyage", "/v1/rerank", Voyage,
			`{"query":"capital of France","documents":["Paris is in France.","Berlin is in Germany.","Rome is in Italy."],"model":"rerank-v3.5","top_k":3}`,
			`{"object":"list","data":[{"relevance_score":0.9,"index":0},{"relevance_score":0.2,"index":2},{"relevance_score":0.1,"index":1}],"model":"rerank-2","usage":{"total_tokens":20}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := fakeService(t, tc.path, tc.body, tc.answer, http.StatusOK)
			c := &Client{URL: u, Model: "rerank-v3.5", Format: tc.format, APIKey: "k3y"}
			got, err := c.Rerank(context.Background(), "capital of France", docs)
			if err != nil {
				t.Fatal(err)
			}
			if want := []float64{0.9, 0.1, 0.2}; !slices.Equal(got, want) {
				t.Fatalf("scores = %v, want %v", got, want)
			}
		})
	}
}

func TestBadAnswers(t *testing.T) {
	body := `{"query":"q","texts":["Paris is in France.","Berlin is in Germany.","Rome is in Italy."],"truncate":true}`
	for name, answer := range map[string]string{
		"too few":      `[{"index":0,"score":0.9},{"index":1,"score":0.2}]`,
		"repeat index": `[{"index":0,"score":0.9},{"index":0,"score":0.2},{"index":1,"score":0.1}]`,
		"out of range": `[{"index":0,"score":0.9},{"index":3,"score":0.2},{"index":1,"score":0.1}]`,
		"no score":     `[{"index":0},{"index":2,"score":0.2},{"index":1,"score":0.1}]`,
		"not json":     `<html>`,
	} {
		c := &Client{URL: fakeService(t, "/rerank", body, answer, http.StatusOK), APIKey: "k3y"}
		if _, err := c.Rerank(context.Background(), "q", docs); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	c := &Client{URL: fakeService(t, "/rerank", body, `{"error":"overloaded"}`, http.StatusServiceUnavailable), APIKey: "k3y"}
	if _, err := c.Rerank(context.Background(), "q", docs); err == nil || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("503: err = %v", err)
	}
}

func TestFormatOf(t *testing.T) {
	for u, want := range map[string]string{
		"https://api.cohere.com/v2/rerank":      Cohere,
		"http://127.0.0.1:8080/v1/rerank":       Jina,
		"http://localhost:8080/rerank/":         TEI,
		"https://api.voyageai.com/v1/rerank":    Voyage,
		"https://ai.example.org/jina/v1/rerank": Jina,
		"https://api.cohere.com/v1/rerank":      Cohere,
		"https://api.cohere.ai/v1/rerank":       Cohere,
		"http://127.0.0.1:8012/v1/rerank":       Jina,
		"http://127.0.0.1:8012/rerank":          TEI,
	} {
		if got, err := FormatOf(u); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", u, got, err, want)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080/v1/score", "ftp://x/rerank", "not a url"} {
		if _, err := FormatOf(u); err == nil {
			t.Errorf("FormatOf(%q): no error", u)
		}
	}
}
