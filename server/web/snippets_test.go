package web

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestStdioSnippetsQuoteWindowsPaths: the Claude Desktop JSON, the Codex
// TOML and the Claude Code command line carry a Windows binary and library
// path with spaces and backslashes intact.
func TestStdioSnippetsQuoteWindowsPaths(t *testing.T) {
	const exe, lib = `C:\Program Files\mcpvec\mcpvec.exe`, `C:\Users\Ann O'Neil\library "main".db`
	h := &Handler{opts: Options{Command: exe, LibraryPath: lib, MCPPath: "/mcp"}}
	d := h.connectData(httptest.NewRequest("GET", "http://127.0.0.1:8080/ui/connect", nil))
	wantArgs := []string{"serve", "--stdio", "--db", lib}

	var desk struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(d.Desktop), &desk); err != nil {
		t.Fatalf("Claude Desktop snippet: %v\n%s", err, d.Desktop)
	}
	if e := desk.MCPServers["mcpvec"]; e.Command != exe || !slices.Equal(e.Args, wantArgs) {
		t.Fatalf("Claude Desktop entry = %q %q", e.Command, e.Args)
	}

	// A TOML basic string and array of them read as JSON ones here: no
	// escape other than \" \\ \uXXXX is used.
	var cmd string
	var args []string
	for l := range strings.Lines(d.Codex) {
		if v, ok := strings.CutPrefix(l, "command = "); ok {
			json.Unmarshal([]byte(v), &cmd)
		}
		if v, ok := strings.CutPrefix(l, "args = "); ok {
			json.Unmarshal([]byte(v), &args)
		}
	}
	if cmd != exe || !slices.Equal(args, wantArgs) {
		t.Fatalf("Codex snippet gives %q %q:\n%s", cmd, args, d.Codex)
	}

	wantCC := `claude mcp add mcpvec -- 'C:\Program Files\mcpvec\mcpvec.exe' serve --stdio --db 'C:\Users\Ann O'\''Neil\library "main".db'`
	if d.ClaudeCode != wantCC {
		t.Fatalf("Claude Code command =\n%s\nwant\n%s", d.ClaudeCode, wantCC)
	}
}
