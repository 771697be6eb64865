package main

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/server/mcptest"
)

// twoLibraries makes the libraries papers.db and notes.db, each with one
// document that mentions the harbour, and returns their paths.
func twoLibraries(t *testing.T) (papers, notes string) {
	t.Helper()
	dir := t.TempDir()
	papers, notes = filepath.Join(dir, "papers.db"), filepath.Join(dir, "notes.db")
	mustRun(t, papers, "ingest", writeFile(t, filepath.Join(dir, "tides.txt"), "tide tables for the harbour entrance, measured at the pier"))
	mustRun(t, notes, "ingest", writeFile(t, filepath.Join(dir, "errands.txt"), "errands: buy rope at the harbour chandlery on saturday"))
	return papers, notes
}

// runtimeEnv is an environment with a runtime folder of the test's own,
// where servers record their library names and admin sockets: a user's
// server of the same name, or another test's, is not in the way.
func runtimeEnv(t *testing.T) []string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpvec-rt-") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return []string{"XDG_RUNTIME_DIR=" + dir}
}

// status is the status of method u with an optional bearer token and body,
// and its WWW-Authenticate header.
func status(t *testing.T, method, u, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// TestServeSeveralLibraries serves two libraries from one process: a real
// MCP client of each finds only that library's document, cited with a link
// under that library's path which opens there and nowhere else; /mcp names
// no library; `mcpvec search --library NAME` reaches the running server's
// library of that name.
func TestServeSeveralLibraries(t *testing.T) {
	t.Parallel()
	papers, notes := twoLibraries(t)
	env := runtimeEnv(t)
	s := serveProc(t, papers, env, "--library", "papers="+papers, "--library", "notes="+notes)
	base := strings.TrimSuffix(s.url, "/papers/mcp")
	if base == s.url {
		t.Fatalf("first endpoint %s is not the papers library's", s.url)
	}
	for name, want := range map[string]string{"papers": "tides.txt", "notes": "errands.txt"} {
		c := connect(t, base+"/"+name+"/mcp", "")
		res := mcpSearchJSON(t, c, "harbour").Results
		if len(res) != 1 || res[0].Title != want {
			t.Fatalf("%s: search harbour = %+v, want only %s", name, res, want)
		}
		if !strings.HasPrefix(res[0].URL, base+"/"+name+"/docs/") {
			t.Errorf("%s: result url %s is not under /%s/docs/", name, res[0].URL, name)
		}
		getBody(t, res[0].URL)
		other := map[string]string{"papers": "/notes/", "notes": "/papers/"}[name]
		if code, _ := status(t, "GET", strings.Replace(res[0].URL, "/"+name+"/", other, 1), "", ""); code != http.StatusNotFound {
			t.Errorf("%s's link under %s = %d, want 404", name, other, code)
		}
		if !strings.Contains(s.Stdout.String(), "library "+name+" (") || !strings.Contains(s.Stdout.String(), "Web page: "+base+"/"+name+"/\n") {
			t.Errorf("no start-up lines for %s:\n%s", name, s.Stdout)
		}
	}
	page := getBody(t, base+"/notes/ui/connect")
	for _, want := range []string{"<code>" + base + "/papers/mcp</code>", "<strong>notes</strong> (this one): <code>" + base + "/notes/mcp</code>",
		"mcpvec-notes", "--library papers=" + papers + " --library notes=" + notes} {
		if !strings.Contains(page, want) {
			t.Errorf("notes' connect page lacks %q", want)
		}
	}
	sse, err := client.NewSSEMCPClient(base + "/notes/sse")
	if err != nil {
		t.Fatal(err)
	}
	initialize(t, sse, "")
	if res := mcpSearchJSON(t, sse, "harbour").Results; len(res) != 1 || res[0].Title != "errands.txt" {
		t.Errorf("notes over SSE: %+v", res)
	}
	if code, _ := status(t, "POST", base+"/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); code != http.StatusNotFound {
		t.Errorf("POST /mcp with several libraries = %d, want 404", code)
	}
	out := mustRunEnv(t, papers, env, "search", "--library", "notes", "harbour")
	if !strings.Contains(out, "errands.txt") || strings.Contains(out, "tides.txt") {
		t.Errorf("search --library notes:\n%s", out)
	}
	if r := mcpvecEnv(t, papers, env, "search", "--library", "nosuch", "harbour"); r.code == 0 || !strings.Contains(r.stderr, "no running `mcpvec serve --library") {
		t.Errorf("search --library nosuch: %+v", r)
	}
}

// TestServeSeveralLibrariesOAuth: with --oauth, each library is its own
// protected resource: a token issued for /papers/mcp opens papers and is
// refused at /notes/mcp with a challenge naming the notes resource's
// metadata, which says so.
func TestServeSeveralLibrariesOAuth(t *testing.T) {
	papers, notes := twoLibraries(t)
	mustRunEnv(t, papers, []string{"MCPVEC_OWNER_PASSPHRASE=" + authTestPass}, "auth", "passphrase")
	addr, err := childproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	serveProc(t, papers, runtimeEnv(t), "--addr", addr, "--public-url", base, "--oauth", "--library", "papers="+papers, "--library", "notes="+notes)
	token := mcptest.OAuthLogin(t, base, authTestPass, url.Values{"resource": {base + "/papers/mcp"}})
	const ping = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if code, _ := status(t, "POST", base+"/papers/mcp", token, ping); code != http.StatusOK {
		t.Fatalf("papers token at /papers/mcp = %d, want 200", code)
	}
	code, www := status(t, "POST", base+"/notes/mcp", token, ping)
	if want := `resource_metadata="` + base + `/.well-known/oauth-protected-resource/notes/mcp"`; code != http.StatusUnauthorized || !strings.Contains(www, want) {
		t.Fatalf("papers token at /notes/mcp = %d %q, want 401 with %s", code, www, want)
	}
	if meta := getBody(t, base+"/.well-known/oauth-protected-resource/notes/mcp"); !strings.Contains(meta, `"resource":"`+base+`/notes/mcp"`) {
		t.Errorf("notes resource metadata: %s", meta)
	}
	notesToken := mcptest.OAuthLogin(t, base, authTestPass, url.Values{"resource": {base + "/notes/mcp"}})
	if code, _ := status(t, "POST", base+"/notes/mcp", notesToken, ping); code != http.StatusOK {
		t.Errorf("notes token at /notes/mcp = %d, want 200", code)
	}
	if code, _ := status(t, "POST", base+"/papers/mcp", notesToken, ping); code != http.StatusUnauthorized {
		t.Errorf("notes token at /papers/mcp = %d, want 401", code)
	}
}

// TestServeOneLibraryKeepsPlainPaths: one --library is served as --db is,
// at /mcp, and `--library NAME` of another command reaches it.
func TestServeOneLibraryKeepsPlainPaths(t *testing.T) {
	t.Parallel()
	papers, _ := twoLibraries(t)
	env := runtimeEnv(t)
	s := startServe(t, papers, env, "--library", "papers="+papers)
	u, _ := url.Parse(s.url)
	if u.Path != "/mcp" {
		t.Fatalf("endpoint %s, want the plain /mcp", s.url)
	}
	if res := mcpSearchJSON(t, s.c, "harbour").Results; len(res) != 1 || !strings.HasPrefix(res[0].URL, "http://"+u.Host+"/docs/") {
		t.Fatalf("search = %+v, want tides.txt linked under /docs/", res)
	}
	r := mcpvecEnv(t, papers, env, "search", "--library", "papers", "harbour")
	if r.code != 0 || !strings.Contains(r.stdout, "tides.txt") || !strings.Contains(r.stderr, "running `mcpvec serve`") {
		t.Errorf("search --library papers: %+v", r)
	}
}

// TestServeSeveralLibrariesRefusals: what a serve of several libraries
// cannot do is said at once.
func TestServeSeveralLibrariesRefusals(t *testing.T) {
	t.Parallel()
	papers, notes := twoLibraries(t)
	a, b := "--library=papers="+papers, "--library=notes="+notes
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "127.0.0.1:0", a, "--library=again=" + papers}, "are the same file"},
		{[]string{"serve", "--stdio", a, b}, "--stdio serves one library"},
		{[]string{"serve", "--addr", "127.0.0.1:0", "--db", papers, a, b}, "--library names the library instead of --db"},
		{[]string{"serve", "--addr", "127.0.0.1:0", a, "--library=notes"}, "give its file"},
		{[]string{"serve", "--addr", "127.0.0.1:0", a, "--library=mcp=" + notes}, "library name \"mcp\""},
		{[]string{"search", a, b, "harbour"}, "only `mcpvec serve` serves several"},
		{[]string{"serve", "--addr", "127.0.0.1:0", a, "--library=w=weaviate://127.0.0.1:9/C"}, "takes a library file"},
	} {
		if r := mcpvec(t, papers, tc.args...); r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("mcpvec %v: exit %d, stderr %q, want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestServeSeveralLibrariesWatch: `--watch` without folders keeps each
// library's remembered folders current: a file added to the notes folder
// becomes searchable in notes, and only there.
func TestServeSeveralLibrariesWatch(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	papers, notes := filepath.Join(dir, "papers.db"), filepath.Join(dir, "notes.db")
	folders := map[string]string{papers: filepath.Join(dir, "p"), notes: filepath.Join(dir, "n")}
	for db, folder := range folders {
		os.Mkdir(folder, 0o755)
		writeFile(t, filepath.Join(folder, "first.txt"), "Beekeepers smoke the hive before opening it.")
		mustRun(t, db, "sync", folder)
	}
	env := runtimeEnv(t)
	s := serveProc(t, papers, env, "--watch", "--watch-quiet", "150ms", "--watch-rescan", "1h",
		"--library", "papers="+papers, "--library", "notes="+notes)
	base := strings.TrimSuffix(s.url, "/papers/mcp")
	writeFile(t, filepath.Join(folders[notes], "second.txt"), "Glassblowers shape molten sand on a pipe.")
	nc := connect(t, base+"/notes/mcp", "")
	if !waitSearch(t, nc, "glassblowers molten sand", "Glassblowers", 20*time.Second) {
		t.Fatalf("the new notes file never became searchable in notes\n%s", s.Stderr)
	}
	pc := connect(t, base+"/papers/mcp", "")
	for _, r := range mcpSearchJSON(t, pc, "glassblowers molten sand").Results {
		if strings.Contains(r.Text, "Glassblowers") {
			t.Fatalf("the notes file is in papers: %+v", r)
		}
	}
}
