package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestImportLayering keeps the dependency arrows of the README true: store,
// index and analysis are leaves (index may use analysis, the word rules),
// ingest and server never import each other, the
// library core imports neither (nor any backend), and only cmd wires
// packages together, naming the backends. Test files are exempt (they may
// build real libraries to test against).
func TestImportLayering(t *testing.T) {
	const mod = "github.com/mcpvec/mcpvec/"
	allowed := map[string][]string{
		"store":    {"store"},
		"index":    {"index", "analysis"},
		"analysis": {"analysis"},
		// The rerank services' wire formats: a leaf only cmd imports (the
		// core takes a library.Reranker, never a provider).
		"rerank": {"rerank"},
		"ingest": {"ingest", "store", "index", "analysis", "internal"},
		"server": {"server", "library", "store", "index", "internal"},
		// The core and its backends: never server or cmd; of ingest only
		// the embedder interface (the exact rules below).
		"library": {"library", "store", "index", "analysis", "ingest", "internal"},
		// internal/ holds leaves any package may use (swar, cputime,
		// evalset) and test kits no production package may import (see
		// testKits below).
		"internal": {"internal", "library", "store", "ingest", "server", "cmd"},
	}
	// Packages with a narrower rule than their top folder.
	exact := map[string][]string{
		// The core answers over library.Backend: it names no backend and
		// no bucket; the index packages give only its options' types and
		// analysis the query's tokens, ingest/embed the embedder interface
		// and traits (never a provider).
		"library": {"store", "index/lexical", "index/vector", "analysis", "ingest/embed", "internal/swar", "library/query"},
		// The query operators' parser and matchers: the store's records
		// and the word rules only.
		"library/query": {"store", "analysis"},
		// The backends implement library.Backend: the embedded one over
		// the bbolt store and the in-process indexes, Weaviate's over its
		// collection client in the same package.
		"library/embedded": {"library", "store", "index", "index/lexical", "index/vector", "ingest/embed"},
		"library/weaviate": {"library", "store"},
		"internal/swar":    {}, // eight-byte scans for snippets and JSON, a leaf
		"internal/evalset": {}, // the shared eval collections and their scoring, a leaf
		// The word rules (tokenizing, stemming, stop words, token
		// estimates) are a leaf; the two retrievers share only index.KV.
		"analysis":      {},
		"rerank":        {},
		"index":         {},
		"index/vector":  {"index", "index/internal/parallel"},
		"index/lexical": {"index", "index/internal/parallel", "analysis"},
		// The embedders: the interface, identity, traits, registry and the
		// offline embedder need the word rules and the store's record of
		// the identity (whose rule for "the same vectors" the identity
		// uses); the provider adds token estimates; the test kits stand
		// alone.
		"ingest/embed":                   {"analysis", "store"},
		"ingest/embed/openai":            {"ingest/embed", "analysis", "internal/backoff"},
		"ingest/embed/openai/openaitest": {},
		"ingest/embed/ollama":            {"ingest/embed", "internal/backoff"},
		"ingest/embed/ollama/ollamatest": {"ingest/embed/openai/openaitest"},
		"ingest/embed/embedtest":         {"ingest/embed"},
		"store/storetest":                {"store"}, // the shared test kit
		// A Library over the embedded backend in a temporary file.
		"library/embedded/embeddedtest": {"library", "library/embedded", "store", "store/storetest", "analysis", "ingest/embed/embedtest"},
		"internal/golden":               {}, // the -update test kit, a leaf
		"internal/reallib":              {"library", "library/embedded", "store", "ingest/embed", "internal/evalset", "internal/cputime"},
		"internal/cputime":              {},                       // CPU clocks for benchmarks and harnesses, a leaf
		"internal/bytesize":             {},                       // sizes as people read them, for ingest and the web page, a leaf
		"internal/backoff":              {},                       // the wait between retries the network clients share, a leaf
		"server/mcptest":                {"server/oidc/oidctest"}, // the MCP test kit: tool calls, the Node clients, sign-ins
		"server/oidc/oidctest":          {},                       // a real OpenID provider for tests, a leaf
		"ingest/extract/extracttest":    {},                       // documents of every format, for tests
		"server/admin":                  {},                       // a leaf; server/admin/imports_test.go checks only cmd imports it
		// sync plans with discover and writes through ingest and the
		// Library interface it declares; watch only calls a sync func.
		"ingest/sync":          {"ingest", "ingest/discover", "ingest/chunk", "store"},
		"ingest/sync/synctest": {"ingest", "ingest/sync", "ingest/discover", "ingest/chunk", "ingest/embed", "ingest/extract", "store", "store/storetest"},
		"ingest/watch":         {"ingest/sync", "ingest/discover"},
		// The web interface reads and writes through the live library; uploads
		// reach ingest only through the func cmd passes it; people and their
		// rights come as server/identity values through its own seams.
		"server/web": {"server", "library", "server/oauth", "server/identity", "store", "server/internal/client", "server/internal/loopback", "internal/bytesize"},
		// Metrics, access log and traces from what the server observes; only
		// cmd wires it, so Prometheus and OpenTelemetry stay out of the rest.
		"server/telemetry": {"server", "library"},
		// Who a request is from, for per-client limits: a leaf the server and
		// the web page share.
		"server/internal/client": {"server/internal/loopback"},
		// The OpenID relying party: only the Person it returns and the
		// loopback rule; server/oauth names it through its Upstream seam.
		"server/oidc": {"server/identity", "server/internal/loopback"},
		// The Weaviate test kit, which starts real nodes, stands alone.
		"library/weaviate/weaviatetest": {},

		// extract is the API and dispatch over one package per family of
		// formats; the families share only internal/core (office reads
		// EPUB chapters with markup's HTML reader).
		"ingest/extract":               {"ingest/extract/internal/core", "ingest/extract/pdf", "ingest/extract/office", "ingest/extract/markup"},
		"ingest/extract/internal/core": {},
		"ingest/extract/pdf":           {"ingest/extract/internal/core"},
		"ingest/extract/office":        {"ingest/extract/internal/core", "ingest/extract/markup"},
		"ingest/extract/markup":        {"ingest/extract/internal/core"},
	}
	// Test kits: golden registers a flag; reallib opens real libraries.
	testKits := []string{"internal/golden", "internal/reallib", "library/embedded/embeddedtest"}
	// Backends are named only by cmd (not walked) and by test kits.
	backends := []string{"library/embedded", "library/weaviate"}
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		ok, ruled := allowed[top]
		if !ruled {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if only, ok := exact[dir]; ok && strings.HasPrefix(p, mod) && !slices.Contains(only, strings.TrimPrefix(p, mod)) {
				t.Errorf("%s imports %s: %s may import only %v", rel, p, dir, only)
			}
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(testKits, strings.TrimPrefix(p, mod)) {
				t.Errorf("%s imports %s: a test kit, for _test.go files only", rel, p)
			}
			if slices.Contains(backends, strings.TrimPrefix(p, mod)) && !slices.Contains(testKits, dir) && !slices.Contains(backends, dir) {
				t.Errorf("%s imports %s: only cmd and test kits name a backend", rel, p)
			}
			if !strings.HasPrefix(p, mod) || slices.Contains(testKits, dir) {
				continue // a test kit's exact rule replaces its folder's
			}
			target := strings.Split(strings.TrimPrefix(p, mod), "/")[0]
			good := false
			for _, a := range ok {
				good = good || a == target
			}
			if !good {
				t.Errorf("%s imports %s: %s/ may import only %v", rel, p, top, ok)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked only %d files: is the walk looking at the module?", checked)
	}
}
