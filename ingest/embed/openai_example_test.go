package embed_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpvec/mcpvec/ingest/embed"
)

// An Ollama-like server on loopback answering /v1/embeddings with
// 3-dimensional vectors.
func exampleServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(len(in)), 1, 0}}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "nomic-embed-text"})
	}))
}

func ExampleNewOpenAI() {
	srv := exampleServer() // in real use: OPENAI_BASE_URL=http://localhost:11434/v1
	defer srv.Close()

	ctx := context.Background()
	e, err := embed.NewOpenAI(ctx, embed.OpenAIConfig{
		BaseURL: srv.URL + "/v1",
		Model:   "nomic-embed-text", // no APIKey needed for a local server
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	vecs, err := e.Embed(ctx, []string{"hello", "vector world"})
	if err != nil {
		fmt.Println(err)
		return
	}
	id := e.Identity()
	fmt.Println(id.Provider, id.Model, id.Dimensions, len(vecs), vecs[1][0])
	fmt.Println("requests:", e.Usage().Requests) // the probe and one batch
	// Output:
	// openai nomic-embed-text 3 2 12
	// requests: 2
}
