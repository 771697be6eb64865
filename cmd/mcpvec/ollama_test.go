package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed/ollama/ollamatest"
	"github.com/mcpvec/mcpvec/store"
)

// TestOllamaIngestSearchServeEndToEnd drives `--embedder ollama` as a
// person would, against a fake Ollama found through $OLLAMA_HOST: ingest
// checks the model and records the embedder with its address; search (in
// hybrid mode) and serve then use it with no flags and no environment.
func TestOllamaIngestSearchServeEndToEnd(t *testing.T) {
	t.Parallel()
	fake := ollamatest.NewServer(t, ollamatest.Options{Dimensions: 256})
	dir, db := tempLib(t)
	light := writeFile(t, filepath.Join(dir, "light.md"), "# Lighthouses\n\nLighthouse keepers trimmed the wicks every night and polished the great lens.\n")
	cats := writeFile(t, filepath.Join(dir, "cats.txt"), "Cats are attached to their homes and groom their kittens with care.")

	out := mustRunEnv(t, db, []string{"OLLAMA_HOST=" + fake.Host()}, "ingest", "--embedder", "ollama", "--embed-model", "nomic-embed-text", light, cats)
	if !strings.Contains(out, "ingested 2 documents") || !strings.Contains(out, "tokens embedded by Ollama in") {
		t.Fatalf("ingest summary: %s", out)
	}
	reqs := fake.Requests()
	if len(reqs) < 3 || reqs[0].Path != "/api/tags" || reqs[1].Path != "/api/embed" {
		t.Fatalf("ingest asked %+v; want the model list, the probe, then passages", reqs)
	}
	for _, r := range fake.Embeds() {
		if r.Model != "nomic-embed-text" || !strings.Contains(string(r.Body), `"truncate":true`) {
			t.Fatalf("embed request %s", r.Body)
		}
	}
	info := libInfo(t, db, nil)
	want := store.EmbedderInfo{Provider: "ollama", Model: "nomic-embed-text", Dimensions: 256, BaseURL: fake.URL}
	if info.Embedder == nil || *info.Embedder != want || info.Documents != 2 {
		t.Fatalf("info = %+v, embedder %+v; want embedder %+v", info, info.Embedder, want)
	}

	// Later commands take the embedder from the library: no flags, no
	// $OLLAMA_HOST.
	before := len(fake.Embeds())
	if sr := searchTop(t, db, nil, "hybrid", "keepers polished the lens"); !strings.Contains(sr.Results[0].Text, "wicks") {
		t.Fatalf("hybrid search top = %+v", sr.Results[0])
	}
	if len(fake.Embeds()) <= before {
		t.Fatal("search did not embed the query at the library's Ollama")
	}
	s := startServe(t, db, nil)
	before = len(fake.Embeds())
	if top := mcpTopResult(t, s.c, "groom their kittens"); !strings.Contains(top.Text, "Cats") {
		t.Fatalf("MCP search top = %+v", top)
	}
	if len(fake.Embeds()) <= before {
		t.Fatal("serve did not embed the query at the library's Ollama")
	}
}

// TestOllamaErrorsSayWhatToDo: a stopped Ollama and a model not pulled
// fail ingest before anything is stored, with the command that fixes it.
func TestOllamaErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	f := writeFile(t, filepath.Join(dir, "a.txt"), "Tides rise twice a day along the northern coast.")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	r := mcpvecEnv(t, db, []string{"OLLAMA_HOST=" + down}, "ingest", "--embedder", "ollama", f)
	if r.code != 1 || !strings.Contains(r.stderr, "ollama is not running at http://"+down) || !strings.Contains(r.stderr, "`ollama serve`") {
		t.Fatalf("ingest with Ollama down: exit %d\n%s", r.code, r.stderr)
	}

	fake := ollamatest.NewServer(t, ollamatest.Options{Models: []string{"llama3.2:3b"}})
	r = mcpvecEnv(t, db, nil, "ingest", "--embedder", "ollama", "--embed-url", fake.URL, "--embed-model", "mxbai-embed-large", f)
	if r.code != 1 || !strings.Contains(r.stderr, "run: ollama pull mxbai-embed-large") {
		t.Fatalf("ingest with the model not pulled: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(fake.Embeds()); n != 0 {
		t.Fatalf("%d embedding requests for a model not pulled", n)
	}
	if info := libInfo(t, db, nil); info.Documents != 0 || info.Embedder != nil {
		t.Fatalf("failed ingests changed the library: %+v", info)
	}
}

// TestOllamaReindexFromOffline: a library built offline switches to
// Ollama with `reindex --embedder ollama`, which finds it at $OLLAMA_HOST
// in the form a server binds to (0.0.0.0:PORT means this machine).
func TestOllamaReindexFromOffline(t *testing.T) {
	t.Parallel()
	fake := ollamatest.NewServer(t, ollamatest.Options{Dimensions: 128})
	_, port, _ := net.SplitHostPort(fake.Host())
	dir, db := tempLib(t)
	f := writeFile(t, filepath.Join(dir, "tides.txt"), "Tides rise twice a day along the northern coast.")
	mustRun(t, db, "ingest", f)
	mustRunEnv(t, db, []string{"OLLAMA_HOST=0.0.0.0:" + port}, "reindex", "--embedder", "ollama")
	info := libInfo(t, db, nil)
	want := store.EmbedderInfo{Provider: "ollama", Model: "nomic-embed-text", Dimensions: 128, BaseURL: "http://127.0.0.1:" + port}
	if info.Embedder == nil || *info.Embedder != want || info.Documents != 1 {
		t.Fatalf("after reindex: %+v, embedder %+v; want %+v", info, info.Embedder, want)
	}
	if sr := searchTop(t, db, nil, "vector", "northern coast tides"); !strings.Contains(sr.Results[0].Text, "Tides") {
		t.Fatalf("vector search after reindex: %+v", sr.Results[0])
	}
}
