package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

const (
	fakeDims   = openaitest.DefaultDimensions
	fakeKey    = "sk-test-fake-key"
	probeInput = "mcpvec probe" // what openai.Embedder sends to check a server
)

// fakeOpenAI is the shared fake embeddings server (openaitest) with the
// helpers these tests use. Its vectors are bags of hashed words, so texts
// sharing words are near.
type fakeOpenAI struct{ *openaitest.Server }

func newFakeOpenAI(t *testing.T) *fakeOpenAI {
	return &fakeOpenAI{openaitest.NewServer(t, openaitest.Options{Dimensions: fakeDims})}
}

func (f *fakeOpenAI) baseURL() string { return f.BaseURL() }

// setHook installs h, which may answer request n itself; n counts from 1,
// the probe being request 1.
func (f *fakeOpenAI) setHook(h func(n int, inputs []string, w http.ResponseWriter, r *http.Request) bool) {
	if h == nil {
		f.SetHook(nil)
		return
	}
	f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, r *http.Request) bool {
		return h(n+1, req.Input, w, r)
	})
}

func (f *fakeOpenAI) count() int { return f.Count() }

// paid returns how often each passage was answered, probes left out.
func (f *fakeOpenAI) paid() map[string]int {
	out := f.Answered()
	delete(out, probeInput)
	return out
}

func fakeError(w http.ResponseWriter, status int, msg string) {
	openaitest.WriteError(w, status, "invalid_request_error", msg)
}

func fakeVec(text string) []float32 { return openaitest.Vector(text, fakeDims) }

func TestOpenAIIngestSearchFetchEndToEnd(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	dir, db := tempLib(t)
	light := writeFile(t, filepath.Join(dir, "light.md"), "# Lighthouses\n\nLighthouse keepers trimmed the wicks every night and polished the great lens.\n")
	cats := writeFile(t, filepath.Join(dir, "cats.txt"), "Cats are attached to their homes and groom their kittens with care.")
	keyEnv := []string{"OPENAI_API_KEY=" + fakeKey}

	out := mustRunEnv(t, db, keyEnv, "ingest", "--embedder", "openai", "--embed-url", fake.baseURL(), "--embed-model", "fake-embed", light, cats)
	if !strings.Contains(out, "ingested 2 documents") || !strings.Contains(out, "embedding tokens sent in") {
		t.Fatalf("ingest summary: %s", out)
	}
	for _, r := range fake.Requests() {
		if r.Auth != "Bearer "+fakeKey {
			t.Fatalf("Authorization header %q, want the key", r.Auth)
		}
	}
	info := libInfo(t, db, keyEnv)
	want := store.EmbedderInfo{Provider: "openai", Model: "fake-embed", Dimensions: fakeDims, BaseURL: fake.baseURL()}
	if info.Embedder == nil || *info.Embedder != want || info.Documents != 2 {
		t.Fatalf("info = %+v, embedder %+v; want embedder %+v", info, info.Embedder, want)
	}

	// Later commands take the embedder from the library: no flags, no URL.
	before := fake.count()
	sr := searchTop(t, db, keyEnv, "vector", "keepers polished the lens")
	if !strings.Contains(sr.Results[0].Text, "wicks") {
		t.Fatalf("semantic search top = %+v", sr.Results[0])
	}
	if fake.count() <= before {
		t.Fatal("search did not embed the query at the library's server")
	}
	var fr struct{ ID, Text string }
	if err := json.Unmarshal([]byte(mustRunEnv(t, db, keyEnv, "fetch", "--json", sr.Results[0].ID)), &fr); err != nil || !strings.Contains(fr.Text, "Lighthouse keepers") {
		t.Fatalf("fetch: %v %+v", err, fr)
	}

	// Asking for another embedder on a later ingest is refused clearly.
	more := writeFile(t, filepath.Join(dir, "more.txt"), "More text about harbours.")
	for _, flags := range [][]string{{"--embedder", "hash"}, {"--embedder", "openai", "--embed-model", "other-model"}} {
		r := mcpvecEnv(t, db, keyEnv, append(append([]string{"ingest"}, flags...), more)...)
		if r.code != 1 || !strings.Contains(r.stderr, "the library was built with openai/fake-embed") || !strings.Contains(r.stderr, "mcpvec reindex") {
			t.Fatalf("ingest %v on an openai library: exit %d\n%s", flags, r.code, r.stderr)
		}
	}
	if got := libInfo(t, db, keyEnv).Documents; got != 2 {
		t.Fatalf("refused ingest changed the library: %d documents", got)
	}
}

func TestOpenAIMissingKeyFailsBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	// Any request to api.openai.com would go through this proxy.
	var mu sync.Mutex
	hits := 0
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		http.Error(w, "no network in tests", http.StatusBadGateway)
	}))
	defer proxy.Close()
	proxyEnv := []string{"HTTPS_PROXY=" + proxy.URL, "HTTP_PROXY=" + proxy.URL, "NO_PROXY="}
	dir, db := tempLib(t)
	f := writeFile(t, filepath.Join(dir, "a.txt"), "some words")

	r := mcpvecEnv(t, db, proxyEnv, "ingest", "--embedder", "openai", f)
	if r.code != 1 || !strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Fatalf("ingest without a key: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	got := hits
	mu.Unlock()
	if got != 0 {
		t.Fatalf("%d requests left the machine before the missing key was reported", got)
	}
	// The trap works: with a key the probe does go out (and fails clearly).
	r = mcpvecEnv(t, db, append(proxyEnv, "OPENAI_API_KEY=sk-x"), "ingest", "--embedder", "openai", f)
	mu.Lock()
	got = hits
	mu.Unlock()
	if r.code != 1 || got == 0 || !strings.Contains(r.stderr, "probe embeddings at https://api.openai.com/v1") {
		t.Fatalf("with a key: exit %d, %d proxy hits\n%s", r.code, got, r.stderr)
	}
}

func TestOpenAIRetryAfterThenSuccess(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	fake.setHook(func(n int, inputs []string, w http.ResponseWriter, r *http.Request) bool {
		if n == 2 { // the first request after the probe
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`)
			return true
		}
		return false
	})
	dir, db := tempLib(t)
	f := writeFile(t, filepath.Join(dir, "a.txt"), "Tides rise twice a day along the northern coast.")
	out := mustRunEnv(t, db, []string{"OPENAI_BASE_URL=" + fake.baseURL()}, "ingest", "--embedder", "openai", f)
	// Tokens as the fake reports them (words + 1): 3 for the probe, 10 for
	// the passage; requests: the probe, the 429 and its retry.
	if !strings.Contains(out, "ingested 1 document ") || !strings.Contains(out, "; 13 embedding tokens sent in 3 requests (1 retries)") {
		t.Fatalf("ingest after a 429: %s", out)
	}
	reqs := fake.Requests()
	gap := reqs[2].At.Sub(reqs[1].At)
	if gap < 900*time.Millisecond {
		t.Fatalf("retried %s after a 429 with Retry-After: 1", gap)
	}
	libInfo(t, db, nil)
}

func TestOpenAIBadVectorsFailTheFileAndKeepTheLibraryConsistent(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	fake.setHook(func(n int, inputs []string, w http.ResponseWriter, r *http.Request) bool {
		dims := 0
		for _, in := range inputs {
			switch {
			case strings.Contains(in, "SHORTVEC"):
				dims = fakeDims - 1
			case strings.Contains(in, "ZEROVEC"):
				dims = fakeDims
			}
		}
		if dims == 0 {
			return false
		}
		data := make([]map[string]any, len(inputs))
		for i := range inputs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": make([]float32, dims)}
			if dims != fakeDims {
				data[i]["embedding"] = fakeVec(inputs[i])[:dims]
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m"})
		return true
	})
	dir, db := tempLib(t)
	env := []string{"OPENAI_BASE_URL=" + fake.baseURL()}
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	writeFile(t, filepath.Join(docs, "good.txt"), "A perfectly ordinary passage about rivers.")
	writeFile(t, filepath.Join(docs, "short.txt"), "This one makes the server answer SHORTVEC vectors.")
	writeFile(t, filepath.Join(docs, "zero.txt"), "This one makes the server answer ZEROVEC vectors.")
	r := mcpvecEnv(t, db, env, "ingest", "--embedder", "openai", docs)
	if r.code != 1 || !strings.Contains(r.stdout, "ingested 1 document ") || !strings.Contains(r.stdout, "2 failed") {
		t.Fatalf("ingest: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"failed " + filepath.Join(docs, "short.txt") + ": embed:",
		"failed " + filepath.Join(docs, "zero.txt") + ": embed:",
		fmt.Sprintf("%d dimensions, want %d", fakeDims-1, fakeDims),
		"all zeros",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if info := libInfo(t, db, env); info.Documents != 1 {
		t.Fatalf("info = %+v, want the good document only", info)
	}
}

// TestIngestKilledMidDocumentResumesWithoutPayingTwice kills an OpenAI
// ingest with SIGKILL in the middle of one large document; the rerun sends
// only the passages the first run did not get answers for.
func TestIngestKilledMidDocumentResumesWithoutPayingTwice(t *testing.T) {
	t.Parallel()
	fake := newFakeOpenAI(t)
	const answerFirst = 4 // embedding requests answered before the server hangs
	hung := fake.hangAfter(answerFirst)
	dir, db := tempLib(t)
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "Sentence %d of the long report mentions item%d and region%d.\n\n", i, i, i%17)
	}
	big := writeFile(t, filepath.Join(dir, "report.txt"), b.String())
	env := []string{"OPENAI_BASE_URL=" + fake.baseURL(), "MCPVEC_EMBED_CONCURRENCY=2"}
	args := []string{"ingest", "--embedder", "openai", "--chunk-tokens", "24", "--overlap-tokens", "0", big}

	killWhen(t, db, append(env, "MCPVEC_LOG=debug"), hung, fmt.Sprintf("committed=%d\n", answerFirst), args...)
	first := fake.paid()
	if len(first) != answerFirst*64 {
		t.Fatalf("first run got %d passages answered, want %d", len(first), answerFirst*64)
	}
	if n := cachedVectors(t, db); n != len(first) {
		t.Fatalf("after the kill the library keeps %d embedded passages, the server answered %d", n, len(first))
	}

	fake.setHook(nil)
	out := mustRunEnv(t, db, env, args...)
	if !strings.Contains(out, "ingested 1 document ") {
		t.Fatalf("rerun: %s", out)
	}
	info := libInfo(t, db, env)
	if info.Passages <= len(first) {
		t.Fatalf("library has %d passages, the first run already %d", info.Passages, len(first))
	}
	fake.assertPaidOnce(t, info.Passages)
	if n := cachedVectors(t, db); n != 0 {
		t.Fatalf("%d cached vectors left after a clean run", n)
	}
	sr := searchTop(t, db, env, "hybrid", "Sentence 321 mentions item321")
	if !strings.Contains(sr.Results[0].Text, "item321") {
		t.Fatalf("search after resume: %+v", sr.Results[0])
	}
}

// hangAfter makes the fake answer the probe and the next answered requests,
// then hold every later request until its client gives up; the channel
// closes when the first one is held.
func (f *fakeOpenAI) hangAfter(answered int) <-chan struct{} {
	hung := make(chan struct{})
	var once sync.Once
	f.setHook(func(n int, inputs []string, w http.ResponseWriter, r *http.Request) bool {
		if n <= 1+answered { // the probe, then the answered requests
			return false
		}
		once.Do(func() { close(hung) })
		<-r.Context().Done()
		return true
	})
	return hung
}

// killWhen runs mcpvec args against db, waits until the fake holds a
// request (hung) and the child's stderr shows marker, then kills it with
// SIGKILL.
func killWhen(t *testing.T, db string, env []string, hung <-chan struct{}, marker string, args ...string) {
	t.Helper()
	ready := func(stderr string) bool {
		select {
		case <-hung:
			return strings.Contains(stderr, marker)
		default:
			return false
		}
	}
	if !kill9When(t, db, env, ready, 0, args...) {
		t.Fatalf("mcpvec %v ended before the hanging request and %q", args, marker)
	}
}

// assertPaidOnce checks that the fake answered each of passages distinct
// passages exactly once (probes left out).
func (f *fakeOpenAI) assertPaidOnce(t *testing.T, passages int) {
	t.Helper()
	paid := f.paid()
	if len(paid) != passages {
		t.Fatalf("%d distinct passages answered, library has %d", len(paid), passages)
	}
	for text, n := range paid {
		if n != 1 {
			t.Fatalf("%q was embedded %d times", text, n)
		}
	}
}

// cachedVectors counts the entries of the ingest embedding cache.
func cachedVectors(t *testing.T, path string) int {
	t.Helper()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	err = db.View(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxEmbedCache)
		if err != nil {
			return err
		}
		return kv.ForEach(func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
