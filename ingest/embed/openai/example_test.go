package openai_test

import (
	"context"
	"fmt"

	"github.com/mcpvec/mcpvec/ingest/embed/openai"
	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

func ExampleNew() {
	// An Ollama-like server on loopback; in real use the base URL is e.g.
	// http://localhost:11434/v1.
	srv := openaitest.Start(openaitest.Options{Flavor: openaitest.Ollama, Dimensions: 3})
	defer srv.Close()

	ctx := context.Background()
	e, err := openai.New(ctx, openai.Config{
		BaseURL: srv.BaseURL(),
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
	fmt.Println(id.Provider, id.Model, id.Dimensions, len(vecs), len(vecs[1]))
	fmt.Println("requests:", e.Usage().Requests) // the probe and one batch
	// Output:
	// openai nomic-embed-text 3 2 3
	// requests: 2
}
