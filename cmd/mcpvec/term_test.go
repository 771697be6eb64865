package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalControlCharactersEscaped ingests files whose names carry
// terminal escape sequences and checks that no output stream passes them on
// raw (issue 15, finding 8).
func TestTerminalControlCharactersEscaped(t *testing.T) {
	db, docs := libAndFolder(t, "docs")
	evil := "evil\x1b]0;owned\x07\x1b[2J\u202e.md"
	os.WriteFile(filepath.Join(docs, evil), []byte("Cats purr when content; kittens purr while nursing.\n"), 0o644)
	os.WriteFile(filepath.Join(docs, "broken\x1b[31m.pdf"), []byte("%PDF-1.4 junk"), 0o644)

	var all []result
	all = append(all, mcpvec(t, db, "ingest", "-v", docs))
	all = append(all, mcpvec(t, db, "ls"), mcpvec(t, db, "search", "kittens purr"), mcpvec(t, db, "rm", "no\x1b[31mpe"))
	for i, r := range all {
		for _, s := range []string{r.stdout, r.stderr} {
			if strings.ContainsAny(s, "\x1b\x07\u202e") {
				t.Errorf("command %d printed a raw control character: %q", i, s)
			}
		}
	}
	if !strings.Contains(all[1].stdout, `evil\x1b]0;owned\x07`) {
		t.Errorf("ls does not show the escaped file name:\n%s", all[1].stdout)
	}
	if !strings.Contains(all[0].stderr, `broken\x1b[31m.pdf`) {
		t.Errorf("ingest does not name the failed file, escaped:\n%s", all[0].stderr)
	}
}

func TestTermSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain title":      "plain title",
		"a\x1b[31mred":     `a\x1b[31mred`,
		"line\nbreak\ttab": "line\nbreak\ttab",
		"c1\u009bcsi":      `c1\x9bcsi`,
		"bidi\u202eevil":   `bidi\u202eevil`,
		"Grüße — 日本語 ✓":    "Grüße — 日本語 ✓",
	} {
		if got := termSafe(in, true); got != want {
			t.Errorf("termSafe(%q) = %q, want %q", in, got, want)
		}
	}
	if got := termSafe("a\nb", false); got != `a\x0ab` {
		t.Errorf("termSafe without lines = %q", got)
	}
}

// TestOnceSkippedSaysEachSkipOnce: the watcher's report says a skipped
// link once, not at every re-sync; other lines always pass.
func TestOnceSkippedSaysEachSkipOnce(t *testing.T) {
	var out strings.Builder
	o := &onceSkipped{w: &out}
	for range 3 {
		fmt.Fprintf(o, "skipped /d/notes.txt: symlink to outside the folder\n")
		fmt.Fprintf(o, "failed /d/x.pdf: malformed document\n")
	}
	fmt.Fprintf(o, "skipped /d/fifo: not a regular file\n")
	want := "skipped /d/notes.txt: symlink to outside the folder\n" + strings.Repeat("failed /d/x.pdf: malformed document\n", 3) + "skipped /d/fifo: not a regular file\n"
	got := out.String()
	if strings.Count(got, "skipped /d/notes.txt") != 1 || strings.Count(got, "failed") != 3 || len(got) != len(want) {
		t.Fatalf("report:\n%s", got)
	}
}
