package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeStartupLines checks what `mcpvec serve` prints at start: each
// URL once, and a loopback server does not send ChatGPT or the Responses
// API to an address they cannot reach (nor, with --oauth alone, the
// Responses API to a server that would answer it 401).
func TestServeStartupLines(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "lib.db")
	if r := mcpvec(t, db, "ingest", filepath.Join("..", "..", "testdata", "cats.pdf")); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	for _, tc := range []struct {
		name      string
		args      []string
		want, not string
	}{
		{"loopback", nil, "work on this computer only", "Give the first URL"},
		{"loopback public URL", []string{"--oauth", "--public-url", "http://127.0.0.1:1"}, "work on this computer only", "Give the first URL"},
		{"oauth", []string{"--oauth", "--public-url", authTestPublic}, "the Responses API needs --token", "Responses API (server_url)"},
		{"oauth and token", []string{"--oauth", "--public-url", authTestPublic, "--token", "t0k3n-for-the-responses-api"}, "the Responses API (server_url)", "needs --token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serveProc(t, db, nil, tc.args...)
			out := waitOutput(t, s.Stdout, "Web page:")
			if !strings.Contains(out, tc.want) || strings.Contains(out, tc.not) {
				t.Errorf("startup lines: want %q and no %q in:\n%s", tc.want, tc.not, out)
			}
			seen := map[string]bool{}
			for _, u := range regexp.MustCompile(`https?://\S+/(?:mcp|sse)\b`).FindAllString(out, -1) {
				if seen[u] {
					t.Errorf("%s printed twice:\n%s", u, out)
				}
				seen[u] = true
			}
		})
	}
}
