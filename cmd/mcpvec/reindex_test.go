package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// reindexLibrary ingests files with the offline embedder: a lighthouse
// document, a cats document and a long report of unique sentences giving
// about passages passages (at 24 tokens each), and returns it with a fake
// OpenAI server to reindex it with.
func reindexLibrary(t *testing.T, sentences int) (db string, fake *fakeOpenAI) {
	t.Helper()
	var docs string
	db, docs = libAndFolder(t, "docs")
	writeFile(t, filepath.Join(docs, "light.md"), "# Lighthouses\n\nLighthouse keepers trimmed the wicks every night and polished the great lens.\n")
	writeFile(t, filepath.Join(docs, "cats.txt"), "Cats are attached to their homes and groom their kittens with care.")
	var b strings.Builder
	for i := range sentences {
		fmt.Fprintf(&b, "Sentence %d of the annual report mentions item%d and region%d.\n\n", i, i, i%17)
	}
	writeFile(t, filepath.Join(docs, "report.txt"), b.String())
	mustRunEnv(t, db, nil, "ingest", "--chunk-tokens", "24", "--overlap-tokens", "0", docs)
	if info := libInfo(t, db, nil); info.Embedder.Provider != "hash" {
		t.Fatalf("library embedder %+v, want hash", info.Embedder)
	}
	return db, newFakeOpenAI(t)
}

func TestReindexHashToOpenAISwitchesEmbedderAndVectors(t *testing.T) {
	t.Parallel()
	db, fake := reindexLibrary(t, 20)
	before := libInfo(t, db, nil)
	env := []string{"OPENAI_API_KEY=" + fakeKey}

	out := mustRunEnv(t, db, env, "reindex", "--embedder", "openai", "--embed-url", fake.baseURL(), "--embed-model", "fake-embed")
	if want := fmt.Sprintf("reindexed %d passages with openai/fake-embed (%d dimensions)", before.Passages, fakeDims); !strings.Contains(out, want) {
		t.Fatalf("reindex output %q lacks %q", out, want)
	}
	if !strings.Contains(out, "embedding tokens sent in") {
		t.Fatalf("reindex output lacks the token count: %s", out)
	}
	after := libInfo(t, db, env)
	want := store.EmbedderInfo{Provider: "openai", Model: "fake-embed", Dimensions: fakeDims, BaseURL: fake.baseURL()}
	if *after.Embedder != want || after.Passages != before.Passages || after.Documents != before.Documents {
		t.Fatalf("after reindex: %+v embedder %+v, want %d passages and embedder %+v", after, after.Embedder, before.Passages, want)
	}
	fake.assertPaidOnce(t, before.Passages)
	// The stored vectors are the new embedder's: vector search through the
	// fake's query embedding finds the passage sharing the words.
	sr := searchTop(t, db, env, "vector", "keepers trimmed wicks polished lens")
	if !strings.Contains(sr.Results[0].Text, "Lighthouse keepers") {
		t.Fatalf("vector search after reindex: %+v", sr.Results)
	}
	// And ingest now uses the new embedder without flags.
	more := writeFile(t, filepath.Join(t.TempDir(), "more.txt"), "Harbour pilots guide ships past the breakwater.")
	mustRunEnv(t, db, env, "ingest", more)
	if p := fake.paid(); p["Harbour pilots guide ships past the breakwater."] != 1 {
		t.Fatalf("ingest after reindex did not embed with the new embedder")
	}
	libInfo(t, db, env)
}

// failFrom makes the fake answer 400 to every request from the n-th
// (probe included) until failing is switched off.
func failFrom(fake *fakeOpenAI, n int) {
	fake.setHook(func(i int, inputs []string, w http.ResponseWriter, r *http.Request) bool {
		if i < n {
			return false
		}
		fakeError(w, http.StatusBadRequest, "This model's maximum context length was exceeded (simulated)")
		return true
	})
}

func TestReindexInterruptedKeepsOldIndexAndResumesPayingOnlyForTheRest(t *testing.T) {
	t.Parallel()
	db, fake := reindexLibrary(t, 400)
	before := libInfo(t, db, nil)
	env := []string{"OPENAI_BASE_URL=" + fake.baseURL(), "MCPVEC_EMBED_CONCURRENCY=2"}
	args := []string{"reindex", "--embedder", "openai"}
	failFrom(fake, 5) // the probe and three batches succeed

	r := mcpvecEnv(t, db, env, args...)
	if r.code != 1 || !strings.Contains(r.stderr, "reindex stopped (rerun the same command to resume") || !strings.Contains(r.stderr, "http 400") {
		t.Fatalf("failing reindex: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	first := fake.paid()
	if len(first) < 3*64 || len(first) >= before.Passages {
		t.Fatalf("first run embedded %d of %d passages", len(first), before.Passages)
	}
	// The old embedder, vectors and index are intact and serve.
	mid := libInfo(t, db, nil)
	if mid.Embedder.Provider != "hash" || mid.Passages != before.Passages {
		t.Fatalf("after a failed reindex: %+v embedder %+v", mid, mid.Embedder)
	}
	if sr := searchTop(t, db, nil, "vector", "lighthouse keepers trimmed the wicks"); !strings.Contains(sr.Results[0].Text, "Lighthouse keepers") {
		t.Fatalf("old index does not serve after a failed reindex: %+v", sr.Results)
	}
	// Another target is refused while one is pending.
	r = mcpvecEnv(t, db, env, "reindex", "--embedder", "openai", "--embed-model", "other-model")
	if r.code != 1 || !strings.Contains(r.stderr, "an interrupted reindex to openai/text-embedding-3-small") || !strings.Contains(r.stderr, "--discard") {
		t.Fatalf("reindex to another model while one is pending: exit %d\n%s", r.code, r.stderr)
	}

	fake.setHook(nil)
	r = mcpvecEnv(t, db, env, args...)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming the reindex") || !strings.Contains(r.stderr, fmt.Sprintf("%d of %d passages already embedded", len(first), before.Passages)) {
		t.Fatalf("resumed reindex: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	fake.assertPaidOnce(t, before.Passages)
	after := libInfo(t, db, env)
	if after.Embedder.Provider != "openai" || after.Embedder.Dimensions != fakeDims {
		t.Fatalf("after resume: embedder %+v", after.Embedder)
	}
	if sr := searchTop(t, db, env, "vector", "Sentence 123 of the annual report mentions item123 and region4."); !strings.Contains(sr.Results[0].Text, "item123 ") {
		t.Fatalf("vector search after the resumed reindex: %+v", sr.Results[0])
	}
}

func TestReindexDiscard(t *testing.T) {
	t.Parallel()
	db, fake := reindexLibrary(t, 200)
	env := []string{"OPENAI_BASE_URL=" + fake.baseURL()}
	failFrom(fake, 3)
	if r := mcpvecEnv(t, db, env, "reindex", "--embedder", "openai"); r.code != 1 {
		t.Fatalf("failing reindex: exit %d\n%s", r.code, r.stderr)
	}
	staged := len(fake.paid())
	if staged == 0 {
		t.Fatal("nothing was staged before the failure")
	}
	if out := mustRunEnv(t, db, env, "reindex", "--discard"); !strings.Contains(out, "discarded the interrupted reindex") {
		t.Fatalf("discard: %s", out)
	}
	if out := mustRunEnv(t, db, env, "reindex", "--discard"); !strings.Contains(out, "no interrupted reindex") {
		t.Fatalf("second discard: %s", out)
	}
	if info := libInfo(t, db, nil); info.Embedder.Provider != "hash" {
		t.Fatalf("discard changed the embedder: %+v", info.Embedder)
	}
	// A different target is accepted now, and starts from scratch.
	fake.setHook(nil)
	r := mcpvecEnv(t, db, env, "reindex", "--embedder", "openai", "--embed-model", "other-model")
	if r.code != 0 || strings.Contains(r.stderr, "resuming") || strings.Contains(r.stderr, "already embedded") {
		t.Fatalf("reindex after discard: exit %d\n%s", r.code, r.stderr)
	}
	info := libInfo(t, db, env)
	if info.Embedder.Model != "other-model" {
		t.Fatalf("embedder after reindex: %+v", info.Embedder)
	}
	twice := 0
	for _, n := range fake.paid() {
		if n == 2 {
			twice++
		}
	}
	if twice != staged {
		t.Fatalf("%d passages embedded twice, want the %d discarded ones", twice, staged)
	}
}

func TestReindexBackToHashWithoutTheOldServer(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	dir, db := tempLib(t)
	f := writeFile(t, filepath.Join(dir, "a.txt"), "Lighthouse keepers trimmed the wicks every night.")
	mustRunEnv(t, db, nil, "ingest", "--embedder", "openai", "--embed-url", fake.baseURL(), f)
	fake.Close() // the old server is gone: reindex must not need it
	// Commands that need it say so at start.
	if r := mcpvecEnv(t, db, nil, "search", "lighthouse"); r.code != 1 || !strings.Contains(r.stderr, "embedder: probe embeddings at "+fake.baseURL()) {
		t.Fatalf("search with the embeddings server gone: exit %d\n%s", r.code, r.stderr)
	}
	out := mustRunEnv(t, db, nil, "reindex", "--embedder", "hash")
	if !strings.Contains(out, "reindexed 1 passages with hash/") {
		t.Fatalf("reindex to hash: %s", out)
	}
	if info := libInfo(t, db, nil); info.Embedder.Provider != "hash" {
		t.Fatalf("embedder %+v", info.Embedder)
	}
	if sr := searchTop(t, db, nil, "vector", "lighthouse keepers"); !strings.Contains(sr.Results[0].Text, "wicks") {
		t.Fatalf("search: %+v", sr.Results)
	}
	// The index reindex saved is the offline embedder's own kind (a Scan
	// index): opening it changes nothing.
	if r := mcpvecEnv(t, db, []string{"MCPVEC_LOG=debug"}, "search", "--mode", "vector", "lighthouse"); strings.Contains(r.stderr, "upgraded\"=true") || strings.Contains(r.stderr, "reconciled") {
		t.Errorf("the vector index reindex saved was converted at the next open:\n%s", r.stderr)
	}
	if r := mcpvecEnv(t, db, nil, "reindex"); r.code != 1 || !strings.Contains(r.stderr, "reindex needs the new embedder") {
		t.Fatalf("reindex without flags: exit %d %s", r.code, r.stderr)
	}
}

func TestEmbedNoteAddsThroughputToTheProgressLine(t *testing.T) {
	t.Parallel()
	db := storetest.MustOpen(t, nil)
	h := embed.NewHash(embed.DefaultHashConfig())
	id := h.Identity()
	if err := db.SetEmbedder(store.EmbedderInfo(id)); err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, h, libOptions(h))
	if err != nil {
		t.Fatal(err)
	}
	if w := lib.BeginWrites(context.Background(), h, id, 0, 0, 0); embedNote(w, h, time.Now()) != nil {
		t.Fatal("the offline embedder is not cached, so it has no note")
	}
	id.Provider = "cached-hash" // any other provider is cached
	w := lib.BeginWrites(context.Background(), h, id, 0, 0, 0)
	defer w.Finish(context.Background(), false)
	for _, texts := range [][]string{{"one", "two", "three"}, {"two"}} {
		if _, err := w.Embedder().Embed(context.Background(), texts); err != nil {
			t.Fatal(err)
		}
	}
	note := embedNote(w, h, time.Now().Add(-time.Second))
	if got := note(); !strings.HasPrefix(got, "  embedded 3 (") || !strings.Contains(got, "/s), 1 resumed") {
		t.Fatalf("progress note %q lacks throughput and resumed count", got)
	}
}

// TestReindexWhileServing hands a reindex to a running server: MCP searches
// keep being answered from the old index while the new vectors are being
// embedded, and use the new embedder as soon as the reindex completes.
func TestReindexWhileServing(t *testing.T) {
	t.Parallel()
	db, fake := reindexLibrary(t, 100)
	gate := make(chan struct{})
	blocked := make(chan struct{})
	var once sync.Once
	fake.setHook(func(n int, inputs []string, w http.ResponseWriter, r *http.Request) bool {
		if n >= 2 { // hold the first batch after the probe until released
			once.Do(func() { close(blocked) })
			select {
			case <-gate:
			case <-r.Context().Done():
			}
		}
		return false
	})
	srv := startServe(t, db, nil)
	c := srv.c

	done := make(chan result, 1)
	go func() {
		done <- mcpvecEnv(t, db, nil, "reindex", "--embedder", "openai", "--embed-url", fake.baseURL())
	}()
	select {
	case <-blocked:
	case r := <-done:
		t.Fatalf("reindex ended before embedding: %+v", r)
	case <-time.After(time.Minute):
		t.Fatal("the reindex never reached the embeddings server")
	}
	const q = "lighthouse keepers trimmed the wicks"
	if got := mcpSearch(t, c, q); len(got) == 0 || !strings.Contains(got[0], "Lighthouse keepers") {
		t.Fatalf("search during the reindex: %q", got)
	}
	// A read handed to the server runs beside the forwarded reindex.
	if r := runChild(t, db, nil, 20*time.Second, "search", q); r.code != 0 || !strings.Contains(r.stdout, "Lighthouse keepers") {
		t.Fatalf("forwarded search during the reindex: %+v", r)
	}
	if fake.paid()[q] != 0 {
		t.Fatal("the query was embedded by the new embedder before the switch")
	}
	close(gate)
	r := <-done
	if r.code != 0 || !strings.Contains(r.stdout, "reindexed") {
		t.Fatalf("forwarded reindex: %+v", r)
	}
	if strings.Contains(srv.Stderr.String(), "DATA RACE") {
		t.Fatalf("the server raced:\n%s", srv.Stderr)
	}
	if got := mcpSearch(t, c, q); len(got) == 0 || !strings.Contains(got[0], "Lighthouse keepers") {
		t.Fatalf("search after the reindex: %q", got)
	}
	if fake.paid()[q] != 1 {
		t.Fatal("after the switch the server does not embed queries with the new embedder")
	}
	info := libInfo(t, db, nil) // forwarded to the server too
	if info.Embedder.Provider != "openai" {
		t.Fatalf("embedder after a forwarded reindex: %+v", info.Embedder)
	}
}

// TestReindexKilledResumes kills a reindex with SIGKILL while requests are
// in flight: the library keeps serving the old embedder, and the rerun
// pays only for what the killed run got no answer for.
func TestReindexKilledResumes(t *testing.T) {
	t.Parallel()
	db, fake := reindexLibrary(t, 300)
	const answerFirst = 3
	hung := fake.hangAfter(answerFirst)
	env := []string{"OPENAI_BASE_URL=" + fake.baseURL(), "MCPVEC_EMBED_CONCURRENCY=2"}
	killWhen(t, db, env, hung, fmt.Sprintf("embedded %d/", answerFirst*64), "reindex", "--embedder", "openai")
	first := fake.paid()
	if len(first) != answerFirst*64 {
		t.Fatalf("killed run got %d passages answered, want %d", len(first), answerFirst*64)
	}
	info := libInfo(t, db, nil)
	if info.Embedder.Provider != "hash" {
		t.Fatalf("embedder after a killed reindex: %+v", info.Embedder)
	}

	fake.setHook(nil)
	r := mcpvecEnv(t, db, env, "reindex", "--embedder", "openai")
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("%d of %d passages already embedded", len(first), info.Passages)) {
		t.Fatalf("resumed reindex: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	fake.assertPaidOnce(t, info.Passages)
	if after := libInfo(t, db, env); after.Embedder.Provider != "openai" {
		t.Fatalf("embedder after the resumed reindex: %+v", after.Embedder)
	}
}

func TestEmbedBatchingFollowsTheRequestSize(t *testing.T) {
	t.Parallel()
	e := &env{getenv: func(k string) string {
		if k == "MCPVEC_EMBED_CONCURRENCY" {
			return "3"
		}
		return ""
	}}
	for _, c := range []struct {
		id        embed.Identity
		size, par int
	}{
		{embed.Identity{Provider: "openai", BaseURL: "https://api.openai.com/v1"}, 256, 3},
		{embed.Identity{Provider: "openai"}, 256, 3},
		{embed.Identity{Provider: "openai", BaseURL: "http://localhost:11434/v1"}, 64, 3},
		{embed.Identity{Provider: "hash"}, 1024, 1},
	} {
		if size, par := embedBatching(e, c.id); size != c.size || par != c.par {
			t.Errorf("embedBatching(%+v) = %d, %d; want %d, %d", c.id, size, par, c.size, c.par)
		}
	}
	for _, c := range []struct {
		want, have embed.Identity
		ok         bool
	}{
		{embed.Identity{Provider: "openai"}, embed.Identity{Provider: "openai", Model: "m", Dimensions: 8}, true},
		{embed.Identity{Provider: "openai", Model: "m"}, embed.Identity{Provider: "openai", Model: "m", Dimensions: 8}, true},
		{embed.Identity{Provider: "openai", Model: "x"}, embed.Identity{Provider: "openai", Model: "m", Dimensions: 8}, false},
		{embed.Identity{Provider: "openai", Dimensions: 4}, embed.Identity{Provider: "openai", Model: "m", Dimensions: 8}, false},
		{embed.Identity{Provider: "hash"}, embed.Identity{Provider: "openai", Model: "m", Dimensions: 8}, false},
	} {
		if got := wants(c.want, c.have); got != c.ok {
			t.Errorf("wants(%+v, %+v) = %v", c.want, c.have, got)
		}
	}
}

// TestReindexTargetRefusesAModelOfOneModelProviders: --embed-model is
// refused for a provider with one model (embed.Traits.OneModel, the offline
// embedder), by trait, and passed on for the others.
func TestReindexTargetRefusesAModelOfOneModelProviders(t *testing.T) {
	e := &env{getenv: func(string) string { return "" }}
	for _, c := range []struct {
		flags embedFlags
		ok    bool
	}{
		{embedFlags{provider: "hash", model: "m"}, false},
		{embedFlags{model: "m"}, false}, // no provider: the offline one
		{embedFlags{provider: "hash", dims: 256}, true},
		{embedFlags{provider: "openai", model: "m"}, true},
	} {
		id, err := c.flags.reindexTarget(e)
		if (err == nil) != c.ok {
			t.Errorf("reindexTarget(%+v) = %+v, %v; want ok %v", c.flags, id, err, c.ok)
		}
		if err != nil && err.Error() != "--embed-model is for --embedder ollama or openai (the offline embedder has one model)" {
			t.Errorf("reindexTarget(%+v): %v", c.flags, err)
		}
	}
}
