package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// The Node tests drive the server with clients nobody here wrote: the
// official TypeScript SDK (testdata/node/sdk.test.mjs) and the MCP
// conformance suite (testdata/node/conformance.mjs with its baseline). They
// need `npm ci` in testdata/node; without node_modules they skip.

const nodeDir = "testdata/node"

// nodeTimeout bounds one node script; the conformance suite is the slowest.
const nodeTimeout = 100 * time.Second

// requireNode skips when node_modules is missing (CI installs it with npm
// ci) and fails when node_modules is there but node is not; see
// mcptest.RequireNode.
func requireNode(tb testing.TB) string {
	tb.Helper()
	return mcptest.RequireNode(tb, nodeDir, "@modelcontextprotocol/sdk", "@modelcontextprotocol/conformance", "conformance-next")
}

// runNode runs a script in testdata/node with extra environment variables
// and fails the test, showing the script's output, unless it exits 0.
func runNode(tb testing.TB, node string, env []string, args ...string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "NO_COLOR=1", "FORCE_COLOR=0")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		tb.Fatalf("node %s timed out after %v:\n%s", strings.Join(args, " "), nodeTimeout, out.String())
	}
	if err != nil {
		tb.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	tb.Logf("node %s took %v:\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), out.String())
	return out.String()
}

// nodeTestServer serves a small fixed library on 127.0.0.1:0.
func nodeTestServer(tb testing.TB, opts Options) *httptest.Server {
	tb.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.LinkKey == nil {
		opts.LinkKey = []byte("node-test-link-key-0123456789abcdef")
	}
	s, err := New(newNodeLibrary(), opts)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s.Handler())
	tb.Cleanup(ts.Close)
	return ts
}

// The expectation the SDK script checks against nodeLibrary.
var nodeExpect = map[string]string{
	"query":               "bbolt transactions",
	"firstId":             "ops.pdf#2",
	"fetchTextIncludes":   "one writer at a time",
	"instructionsInclude": "ops.pdf",
}

func TestNodeSDK(t *testing.T) {
	node := requireNode(t)
	ts := nodeTestServer(t, Options{})
	expect, _ := json.Marshal(nodeExpect)
	runNode(t, node, []string{"MCPVEC_BASE=" + ts.URL, "MCPVEC_EXPECT=" + string(expect)}, "sdk.test.mjs")
}

func TestNodeSDKWithToken(t *testing.T) {
	node := requireNode(t)
	const token = "node-test-token-5f0e4d1c"
	ts := nodeTestServer(t, Options{Token: token})
	expect, _ := json.Marshal(nodeExpect)
	out := runNode(t, node, []string{"MCPVEC_BASE=" + ts.URL, "MCPVEC_TOKEN=" + token, "MCPVEC_EXPECT=" + string(expect)}, "sdk.test.mjs")
	// The auth cases only run when the script got the token; make sure
	// they did run and were not silently left out.
	if !strings.Contains(out, "refuses a client with a wrong token") {
		t.Errorf("the auth cases did not run:\n%s", out)
	}
}

// TestNodeConformance runs every server scenario of the conformance
// suite's newest release against conformance-baseline.json.
func TestNodeConformance(t *testing.T) {
	node := requireNode(t)
	ts := nodeTestServer(t, Options{})
	out := runNode(t, node, nil, "conformance.mjs", ts.URL+"/mcp")
	if !strings.Contains(out, "all applicable scenarios pass") {
		t.Errorf("conformance run did not report success:\n%s", out)
	}
}

// TestNodeConformance20260728 runs what the MCP 2026-07-28 revision
// requires (stateless servers included), which only the suite's 0.2.0
// pre-release knows, against conformance-baseline-2026-07-28.json.
func TestNodeConformance20260728(t *testing.T) {
	node := requireNode(t)
	ts := nodeTestServer(t, Options{})
	out := runNode(t, node, nil, "conformance.mjs", ts.URL+"/mcp", "conformance-baseline-2026-07-28.json")
	for _, want := range []string{"all applicable scenarios pass", "pass  server-stateless", "pass  tools-list"} {
		if !strings.Contains(out, want) {
			t.Errorf("conformance 2026-07-28 run: no %q:\n%s", want, out)
		}
	}
}

// TestNodeLockfilePinsVersions keeps package.json exact and the lockfile in
// step, so npm ci installs exactly what was reviewed. It needs no node.
func TestNodeLockfilePinsVersions(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	nodeReadJSON(t, filepath.Join(nodeDir, "package.json"), &pkg)
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Version      string            `json:"version"`
			Dependencies map[string]string `json:"dependencies"`
		} `json:"packages"`
	}
	nodeReadJSON(t, filepath.Join(nodeDir, "package-lock.json"), &lock)
	want := map[string]string{
		"@modelcontextprotocol/conformance": "0.1.16",
		"@modelcontextprotocol/sdk":         "1.32.2",
		"conformance-next":                  "0.2.0-alpha.12", // npm alias of the suite's pre-release
	}
	for name, version := range want {
		spec := version
		if name == "conformance-next" {
			spec = "npm:@modelcontextprotocol/conformance@" + version
		}
		if got := pkg.Dependencies[name]; got != spec {
			t.Errorf("package.json pins %s at %q, want exactly %q", name, got, spec)
		}
		if got := lock.Packages["node_modules/"+name].Version; got != version {
			t.Errorf("package-lock.json has %s %q, want %q", name, got, version)
		}
		if got := lock.Packages[""].Dependencies[name]; got != spec {
			t.Errorf("package-lock.json root lists %s %q, want %q (run npm install in %s)", name, got, spec, nodeDir)
		}
	}
	if lock.LockfileVersion < 2 {
		t.Errorf("lockfileVersion = %d, want >= 2", lock.LockfileVersion)
	}
}

// TestNodeConformanceBaseline checks the baselines' shape: every entry
// gives a reason, none excuses what every server must pass, and each is
// for its pinned suite. It needs no node.
func TestNodeConformanceBaseline(t *testing.T) {
	for file, version := range map[string]string{
		"conformance-baseline.json":            "0.1.16",
		"conformance-baseline-2026-07-28.json": "0.2.0-alpha.12",
	} {
		var b struct {
			SuiteVersion  string            `json:"suiteVersion"`
			NotApplicable map[string]string `json:"notApplicable"`
		}
		nodeReadJSON(t, filepath.Join(nodeDir, file), &b)
		if got := b.SuiteVersion; got != version {
			t.Errorf("%s: suiteVersion = %q, want %q", file, got, version)
		}
		for _, name := range []string{"server-initialize", "ping", "tools-list", "server-stateless", "dns-rebinding-protection"} {
			if _, ok := b.NotApplicable[name]; ok {
				t.Errorf("%s excuses all of %s, which every MCP server must pass", file, name)
			}
		}
		for name, reason := range b.NotApplicable {
			if len(strings.Fields(reason)) < 4 {
				t.Errorf("%s entry %s: reason %q does not say why", file, name, reason)
			}
		}
	}
}

func nodeReadJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// nodeLibrary is a tiny fixed library: passages matched by shared words.
type nodeLibrary struct {
	passages []library.FetchResponse
}

func newNodeLibrary() *nodeLibrary {
	p := func(doc string, page int, text string) library.FetchResponse {
		return library.FetchResponse{
			ID:    fmt.Sprintf("%s#%d", doc, page),
			Title: fmt.Sprintf("%s — p. %d", doc, page),
			Text:  text,
			Metadata: map[string]any{
				"document_id": doc, "source": "/lib/" + doc, "page_start": page, "page_end": page, "chunk_index": page - 1,
			},
			DocID: doc,
			Page:  page,
		}
	}
	return &nodeLibrary{passages: []library.FetchResponse{
		p("ops.pdf", 1, "Backups: copy the library file while no write is running."),
		p("ops.pdf", 2, "bbolt transactions: one writer at a time, many readers; transactions see a consistent snapshot."),
		p("guide.md", 1, "Run mcpvec serve and connect ChatGPT through a tunnel."),
	}}
}

func nodeWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func (l *nodeLibrary) Search(ctx context.Context, query string, so library.SearchOptions) (*library.SearchResponse, error) {
	if err := checkQuery(query, so); err != nil {
		return nil, err
	}
	k := so.K
	if len(nodeWords(query)) == 0 {
		return nil, library.ErrEmptyQuery
	}
	top, scores := topByWords(l.passages, nodeWords(query), k, func(p library.FetchResponse, w string) bool {
		return slices.Contains(nodeWords(p.Text), w)
	})
	resp := &library.SearchResponse{Results: []library.SearchResult{}}
	for i, p := range top {
		resp.Results = append(resp.Results, library.SearchResult{
			ID: p.ID, Title: p.Title, Text: p.Text, DocID: p.DocID, Page: p.Page, Score: float64(scores[i]),
		})
	}
	return resp, nil
}

func (l *nodeLibrary) Fetch(ctx context.Context, id string, _ library.FetchOptions) (*library.FetchResponse, error) {
	for _, p := range l.passages {
		if p.ID == id {
			return &p, nil
		}
	}
	return nil, fmt.Errorf("fetch %q: %w", id, library.ErrNotFound)
}

func (l *nodeLibrary) Original(ctx context.Context, docID string) (*library.Original, error) {
	var text strings.Builder
	for _, p := range l.passages {
		if p.DocID == docID {
			text.WriteString(p.Text + "\n")
		}
	}
	if text.Len() == 0 {
		return nil, fmt.Errorf("original %q: %w", docID, library.ErrNotFound)
	}
	return &library.Original{Name: docID, MediaType: "text/plain; charset=utf-8", Content: strings.NewReader(text.String()), Size: int64(text.Len())}, nil
}

func (l *nodeLibrary) View(ctx context.Context, docID string) (*library.View, error) {
	return nil, fmt.Errorf("view %q: %w", docID, library.ErrNotFound)
}

func (l *nodeLibrary) Summary(ctx context.Context) (library.Summary, error) {
	return library.Summary{Documents: 2, Chunks: len(l.passages), Pages: 3, Titles: []string{"guide.md", "ops.pdf"}}, nil
}

// Make sure the fake keeps satisfying the interface the server needs.
var _ Library = (*nodeLibrary)(nil)
