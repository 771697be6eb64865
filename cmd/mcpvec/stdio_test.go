package main

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// stdioRun is what server/testdata/node/stdio.test.mjs reports.
type stdioRun struct {
	Tools      []string        `json:"tools"`
	Search     json.RawMessage `json:"search"`
	FetchChars int             `json:"fetchChars"`
	ConnectMs  float64         `json:"connectMs"`
	SearchMs   []float64       `json:"searchMs"`
}

// runStdioNode launches command with args as Claude Desktop would, from
// the official TypeScript SDK's stdio client, and returns its report.
func runStdioNode(t *testing.T, node, command string, args []string, query string) stdioRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a, _ := json.Marshal(args)
	cmd := exec.CommandContext(ctx, node, "stdio.test.mjs")
	cmd.Dir = nodeTestDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "MCPVEC_COMMAND="+command, "MCPVEC_ARGS="+string(a),
		"MCPVEC_QUERY="+query, `MCPVEC_CHILD_ENV={"MCPVEC_TEST_MAIN":"1"}`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("node stdio.test.mjs %s %v: %v\n%s", command, args, err, out.String())
	}
	t.Logf("node stdio.test.mjs:\n%s", out.String())
	_, line, ok := strings.Cut(out.String(), "RESULT ")
	var r stdioRun
	if !ok || json.Unmarshal([]byte(strings.SplitN(line, "\n", 2)[0]), &r) != nil {
		t.Fatalf("no RESULT line in:\n%s", out.String())
	}
	return r
}

// pageText fetches url and returns the unescaped text of its <pre
// id="id">, which is what the page's Copy button copies.
func pageText(t *testing.T, body, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre id="` + id + `">(.*?)</pre>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no <pre id=%q> on the page:\n%s", id, body)
	}
	return html.UnescapeString(m[1])
}

func getBody(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %s:\n%s", url, resp.Status, b)
	}
	return string(b)
}

// desktopEntry parses the Claude Desktop snippet of a Connect page.
func desktopEntry(t *testing.T, page string) (command string, args []string) {
	t.Helper()
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(pageText(t, page, "desktop")), &cfg); err != nil {
		t.Fatalf("Claude Desktop snippet is not JSON: %v", err)
	}
	e, ok := cfg.MCPServers["mcpvec"]
	if !ok {
		t.Fatalf("no mcpvec server in the Claude Desktop snippet: %+v", cfg)
	}
	return e.Command, e.Args
}

// selfPath is the absolute, resolved path of the binary the children run.
func selfPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(os.Args[0])
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestDesktopSnippetBesideRunningServe is issue 34 item 2: the Connect
// page's Claude Desktop entry, launched exactly as written by the
// TypeScript SDK's stdio client while `mcpvec serve` holds the library,
// must work (the session is handed to the running server), and give the
// same tools and results as the same entry with no server running (a
// direct stdio server). It logs the search round trips of both.
func TestDesktopSnippetBesideRunningServe(t *testing.T) {
	node := requireNodeSDK(t)
	_, db := tempLib(t)
	cats, _ := filepath.Abs("../../testdata/cats.pdf")
	mustRun(t, db, "ingest", cats)
	srv := serveProc(t, db, nil)
	page := getBody(t, strings.TrimSuffix(srv.url, "/mcp")+"/ui/connect")
	command, args := desktopEntry(t, page)
	if want := selfPath(t); command != want {
		t.Fatalf("snippet command = %q, want the binary's absolute path %q", command, want)
	}
	if want := []string{"serve", "--stdio", "--db", db}; !slices.Equal(args, want) {
		t.Fatalf("snippet args = %q, want %q", args, want)
	}
	const query = "are cats attached to their homes"
	proxied := runStdioNode(t, node, command, args, query)
	if !strings.Contains(srv.Stderr.String(), "admin mcp session started") {
		t.Fatalf("the running server served no session handed to it:\n%s", srv.Stderr)
	}
	waitOutput(t, srv.Stderr, "admin mcp session done") // the client's exit ended the session
	srv.Stop()
	direct := runStdioNode(t, node, command, args, query)
	if !slices.Equal(proxied.Tools, direct.Tools) || !bytes.Equal(proxied.Search, direct.Search) || proxied.FetchChars != direct.FetchChars {
		t.Fatalf("through the running server:\n%+v\ndirect:\n%+v", proxied, direct)
	}
	t.Logf("search round trip, median of %d: through the running server %.2f ms, direct stdio %.2f ms; start to initialised: %.0f ms vs %.0f ms",
		len(direct.SearchMs), median(proxied.SearchMs), median(direct.SearchMs), proxied.ConnectMs, direct.ConnectMs)
}

// shellWords splits a command line as shellJoin quoted it.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	for _, m := range regexp.MustCompile(`'((?:[^']|'\\'')*)'|(\S+)`).FindAllStringSubmatch(line, -1) {
		if m[2] != "" {
			words = append(words, m[2])
		} else {
			words = append(words, strings.ReplaceAll(m[1], `'\''`, `'`))
		}
	}
	return words
}

// startPageCommand runs a `mcpvec serve …` command line the Connect page
// shows, with the placeholders filled in as a user would, and returns the
// local MCP URL; the server stops when the test ends.
func startPageCommand(t *testing.T, db, line string, fill map[string]string) *childproc.Proc {
	t.Helper()
	for k, v := range fill {
		line = strings.ReplaceAll(line, k, v)
	}
	w := shellWords(t, line)
	if len(w) < 2 || w[0] != selfPath(t) || w[1] != "serve" {
		t.Fatalf("page command %q does not run this binary's serve", line)
	}
	p, _, err := childproc.StartServe(context.Background(), w[0], childEnv(db), time.Minute, w[2:]...)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	t.Cleanup(p.Stop)
	return p
}

// responsesCall sends what the Responses API would from the page's
// snippet: an MCP initialize to server_url with the snippet's headers,
// reached through reach (the tunnel) in place of publicBase.
func responsesCall(t *testing.T, snippet, publicBase, reach string, fill map[string]string) int {
	t.Helper()
	for k, v := range fill {
		snippet = strings.ReplaceAll(snippet, k, v)
	}
	var req struct {
		Tools []struct {
			ServerURL string            `json:"server_url"`
			Headers   map[string]string `json:"headers"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(snippet), &req); err != nil || len(req.Tools) != 1 {
		t.Fatalf("Responses snippet: %v\n%s", err, snippet)
	}
	tool := req.Tools[0]
	if !strings.HasPrefix(tool.ServerURL, publicBase+"/") {
		t.Fatalf("server_url %q is not under the public address %q", tool.ServerURL, publicBase)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"responses","version":"1"}}}`
	hr, _ := http.NewRequest(http.MethodPost, reach+strings.TrimPrefix(tool.ServerURL, publicBase), strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range tool.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK && !strings.Contains(string(b), `"serverInfo"`) {
		t.Fatalf("initialize answered 200 without a result:\n%s", b)
	}
	return resp.StatusCode
}
