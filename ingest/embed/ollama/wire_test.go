package ollama

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed/ollama/ollamatest"
)

func testdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWireIsTheDocumentedOne: the probe is sent byte for byte as
// testdata/embed_request.json, and the documented answers (testdata, see
// its README for the sources) are read: the model list, an embedding with
// its durations and token count, the missing-model error.
func TestWireIsTheDocumentedOne(t *testing.T) {
	fake := ollamatest.NewServer(t, ollamatest.Options{})
	answers := map[string][]byte{"/api/tags": testdata(t, "tags.json"), "/api/embed": testdata(t, "embed_response.json")}
	fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write(answers[req.Path])
		return true
	})
	e, err := New(context.Background(), quiet(fake.URL, "nomic-embed-text"))
	if err != nil {
		t.Fatal(err)
	}
	embeds := fake.Embeds()
	if got, want := embeds[0].Body, bytes.TrimSpace(testdata(t, "embed_request.json")); !bytes.Equal(got, want) {
		t.Fatalf("probe body\n%s\nwant\n%s", got, want)
	}
	if got := e.Identity().Dimensions; got != 8 {
		t.Fatalf("dimensions %d, want the documented answer's 8", got)
	}
	if u := e.Usage(); u.Tokens != 4 || u.Requests != 2 {
		t.Fatalf("usage %+v: want the answer's prompt_eval_count 4 in 2 requests", u)
	}

	fake.SetHook(func(n int, req ollamatest.Request, w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write(testdata(t, "error_model_missing.json"))
		return true
	})
	_, err = e.EmbedQuery(context.Background(), "lighthouse")
	if !errors.Is(err, ErrModelMissing) || !strings.Contains(err.Error(), `model "mxbai-embed-large" not found, try pulling it first`) {
		t.Fatalf("documented 404: %v", err)
	}
}
