package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
)

// TestServersShareWeaviate runs two `serve` processes on one collection:
// an ingest from the CLI while both run is found through MCP on both.
func TestServersShareWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, weaviatetest.Options{})
	dir := t.TempDir()
	env := []string{"MCPVEC_STORE=" + c.URL(0, "Shared")}
	db := filepath.Join(dir, "unused.db")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("some text to index"), 0o644)
	mustRunEnv(t, db, env, "ingest", filepath.Join(dir, "a.txt"))
	one, two := startServe(t, db, env).c, startServe(t, db, env).c
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("Lighthouse keepers trimmed the wicks nightly."), 0o644)
	if out := mustRunEnv(t, db, env, "ingest", filepath.Join(dir, "b.txt")); !strings.Contains(out, "ingested 1 document ") {
		t.Fatalf("ingest beside two servers: %s", out)
	}
	for _, cl := range []*client.Client{one, two} {
		if got := mcpSearch(t, cl, "lighthouse keepers"); len(got) == 0 || !strings.Contains(got[0], "wicks") {
			t.Errorf("search over MCP after another process's ingest: %q", got)
		}
	}
}

// TestEndToEndWeaviate runs the end-to-end test on a real Weaviate node
// selected by MCPVEC_STORE, then migrates the collection into a file and
// back into a second collection, and searches both.
func TestEndToEndWeaviate(t *testing.T) {
	c := weaviatetest.Start(t, weaviatetest.Options{APIKey: "e2e-key"})
	dir := t.TempDir()
	env := []string{"MCPVEC_STORE=" + c.URL(0, "EndToEnd"), "MCPVEC_WEAVIATE_API_KEY=e2e-key"}
	unused := filepath.Join(dir, "unused.db")
	testEndToEnd(t, dir, unused, env)
	// check reads the collection the flags select, not the unused file.
	if out := mustRunEnv(t, unused, env, "check"); !strings.Contains(out, c.URL(0, "EndToEnd")+": ok") {
		t.Errorf("check of the collection: %s", out)
	}
	if r := mcpvecEnv(t, unused, env, "check", "--repair"); r.code != 1 || !strings.Contains(r.stderr, "rebuilds a library file") {
		t.Errorf("check --repair of a collection: %+v", r)
	}

	file := filepath.Join(dir, "copy.db")
	key := env[1:]
	if out := mustRunEnv(t, file, key, "migrate", "--from", c.URL(0, "EndToEnd")); !strings.Contains(out, "copied 1 documents") {
		t.Fatalf("migrate --from: %s", out)
	}
	if out := mustRunEnv(t, file, key, "migrate", "--to", c.URL(0, "Copy")); !strings.Contains(out, "copied 1 documents") {
		t.Fatalf("migrate --to: %s", out)
	}
	if out := mustRunEnv(t, file, key, "migrate", "--to", c.URL(0, "Copy")); !strings.Contains(out, "copied 0 documents, 1 were already there") {
		t.Fatalf("migrate --to again: %s", out)
	}
	// $MCPVEC_STORE names the collection other commands use; migrate's
	// file side is still the file.
	if out := mustRunEnv(t, file, env, "migrate", "--to", c.URL(0, "Copy")); !strings.Contains(out, "1 were already there, from "+file) {
		t.Fatalf("migrate --to with $MCPVEC_STORE set: %s", out)
	}
	for _, e := range [][]string{key, append([]string{"MCPVEC_STORE=" + c.URL(0, "Copy")}, key...)} {
		var sr searchJSON
		out := mustRunEnv(t, file, e, "search", "--json", "are cats attached to their homes")
		if err := json.Unmarshal([]byte(out), &sr); err != nil || len(sr.Results) == 0 || !strings.Contains(sr.Results[0].Title, "p. ") {
			t.Errorf("search after migrate (%v): %v %s", e, err, out)
		}
	}
	if r := mcpvecEnv(t, unused, []string{"MCPVEC_STORE=" + c.URL(0, "EndToEnd")}, "ls"); r.code == 0 || !strings.Contains(r.stderr, "refused") {
		t.Errorf("ls without the API key: %+v", r)
	}
}

// TestWeaviateCollectionFlagsAndReindex creates a collection with
// --shards 2, refuses bad collection flags, and reindexes it into a new
// collection with other dimensions, which then answers searches.
func TestWeaviateCollectionFlagsAndReindex(t *testing.T) {
	c := weaviatetest.Start(t, weaviatetest.Options{})
	dir := t.TempDir()
	unused := filepath.Join(dir, "unused.db")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("Lighthouse keepers trimmed the wicks nightly."), 0o644)
	old := []string{"MCPVEC_STORE=" + c.URL(0, "Before")}
	mustRunEnv(t, unused, old, "ingest", "--shards", "2", filepath.Join(dir, "a.txt"))
	resp, err := c.Do(0, "GET", "/v1/schema/BeforePassage", "")
	if err != nil {
		t.Fatal(err)
	}
	var cls struct {
		ShardingConfig struct{ DesiredCount int } `json:"shardingConfig"`
	}
	err = json.NewDecoder(resp.Body).Decode(&cls)
	resp.Body.Close()
	if err != nil || cls.ShardingConfig.DesiredCount != 2 {
		t.Errorf("passage shards after ingest --shards 2: %+v, %v", cls, err)
	}
	for _, args := range [][]string{{"--consistency", "SOME"}, {"--replicas", "0"}, {"--async-replication", "maybe"}} {
		if r := mcpvecEnv(t, unused, old, append([]string{"ingest"}, append(args, filepath.Join(dir, "a.txt"))...)...); r.code == 0 || !strings.Contains(r.stderr, args[0]) {
			t.Errorf("ingest %v: exit %d, stderr %q; want refused naming the flag", args, r.code, r.stderr)
		}
	}
	if r := mcpvecEnv(t, unused, old, "reindex", "--embedder", "hash", "--dimensions", "64"); r.code == 0 || !strings.Contains(r.stderr, "--into") {
		t.Errorf("reindex of a Weaviate library without --into: %+v", r)
	}
	out := mustRunEnv(t, unused, old, "reindex", "--into", c.URL(0, "After"), "--embedder", "hash", "--dimensions", "64")
	if !strings.Contains(out, "reindexed 1 documents") {
		t.Fatalf("reindex --into: %s", out)
	}
	after := []string{"MCPVEC_STORE=" + c.URL(0, "After")}
	if info := mustRunEnv(t, unused, after, "info", "--json"); !strings.Contains(info, `"dimensions": 64`) && !strings.Contains(info, `"dimensions":64`) {
		t.Errorf("info of the reindexed collection does not show 64 dimensions: %s", info)
	}
	var sr searchJSON
	out = mustRunEnv(t, unused, after, "search", "--json", "lighthouse wicks")
	if err := json.Unmarshal([]byte(out), &sr); err != nil || len(sr.Results) == 0 || !strings.Contains(sr.Results[0].Text, "wicks") {
		t.Errorf("search of the reindexed collection: %v %s", err, out)
	}
}
