package main

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeTestNamesSkippedTests is issue 34 item 8: `make test` reported
// the Weaviate packages "ok" when weaviate-server was missing and every
// test in them skipped. Its recipe now ends with this command, which names
// the tests each missing tool skipped, unless that tool is required.
func TestMakeTestNamesSkippedTests(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	recipe := regexp.MustCompile(`(?m)^test:.*\n((?:\t.*\n)+)`).FindSubmatch(mk)
	if recipe == nil || !strings.Contains(string(recipe[1]), "$(GO) run ./internal/testnote") ||
		!strings.Contains(string(recipe[1]), "exit $$st") {
		t.Fatalf("make test does not run ./internal/testnote after the tests and keep their status:\n%s", recipe)
	}

	none := t.TempDir() // no weaviate-server, no node_modules
	t.Setenv("MCPVEC_WEAVIATE_SERVER", "")
	t.Setenv("PATH", none)
	t.Setenv("GOBIN", none)
	t.Setenv("GOPATH", none)
	t.Setenv("MCPVEC_CHROMIUM", "")
	missing := func(string) (string, error) { return "", errors.New("not found") }
	got := strings.Join(notes(none, func(string) string { return "" }, missing), "\n")
	for _, want := range []string{"the Weaviate tests", "the OCR tests", "the browser tests", "the Node MCP client tests"} {
		if !strings.Contains(got, "SKIPPED: "+want) {
			t.Errorf("no line for %s in:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != 4 {
		t.Errorf("%d lines, want 4:\n%s", n, got)
	}
	required := func(k string) string { return map[string]string{"MCPVEC_WEAVIATE_TESTS": "required"}[k] }
	if got := strings.Join(notes(none, required, missing), "\n"); strings.Contains(got, "Weaviate") {
		t.Errorf("a required Weaviate (whose tests fail when missing) is noted:\n%s", got)
	}
	t.Setenv("MCPVEC_WEAVIATE_SERVER", filepath.Join(none, "weaviate-server"))
	found := func(name string) (string, error) { return "/usr/bin/" + name, nil }
	os.MkdirAll(filepath.Join(none, "server", "testdata", "node", "node_modules"), 0o755)
	os.WriteFile(filepath.Join(none, "server", "testdata", "node", "node_modules", ".package-lock.json"), nil, 0o644)
	if got := notes(none, func(string) string { return "" }, found); len(got) != 0 {
		t.Errorf("notes with every tool installed: %q", got)
	}
}
