package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestIngestSharedPDFCorpus ingests every PDF of the shared real-world
// corpus (hostile, encrypted, fuzzed files included) with the real binary:
// each file must end ingested or with one clear failure line, the command
// must not hang, and stdout must hold nothing but the summary line.
func TestIngestSharedPDFCorpus(t *testing.T) {
	corpus, _ := filepath.Abs("../../../shared/pdfs/corpus")
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Skipf("shared PDF corpus not available (%v): this check needs ../shared/pdfs", err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pdf") {
			n++
		}
	}
	db := filepath.Join(t.TempDir(), "lib.db")
	r := mcpvec(t, db, "ingest", corpus)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "ingested ") {
		t.Fatalf("stdout must be the summary line only, got %d lines:\n%s", len(lines), r.stdout)
	}
	m := regexp.MustCompile(`^ingested (\d+) documents? .* (\d+) failed`).FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("summary = %q", lines[0])
	}
	ingested, _ := strconv.Atoi(m[1])
	failed, _ := strconv.Atoi(m[2])
	var failLines []string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "failed ") {
			failLines = append(failLines, l)
		}
	}
	if ingested+failed != n || len(failLines) != failed {
		t.Fatalf("%d PDFs: %d ingested + %d failed, %d failure lines\n%s", n, ingested, failed, len(failLines), r.stderr)
	}
	for _, l := range failLines {
		if !regexp.MustCompile(`password required|no extractable text|malformed|too large|timed out|garbage`).MatchString(l) {
			t.Errorf("unclear failure line: %s", l)
		}
	}
	if want := 1; (failed > 0) != (r.code == want) {
		t.Errorf("exit status %d with %d failures", r.code, failed)
	}
	if out := mustRun(t, db, "info"); !strings.Contains(out, "consistent") {
		t.Fatalf("info after corpus: %s", out)
	}
	t.Logf("%d of %d PDFs ingested, %d failed with a clear reason", ingested, n, failed)
}

// TestIngestEncryptedPDFWithPassword opens a password-protected corpus file
// with --password (pdf.js's test password for it, an AES-256 revision 6
// password that needs SASLprep).
func TestIngestEncryptedPDFWithPassword(t *testing.T) {
	f, _ := filepath.Abs("../../../shared/pdfs/corpus/pdfjs__saslprep-r6.pdf")
	if _, err := os.Stat(f); err != nil {
		t.Skipf("shared PDF corpus not available: %v", err)
	}
	db := filepath.Join(t.TempDir(), "lib.db")
	if r := mcpvec(t, db, "ingest", f); r.code != 1 || !strings.Contains(r.stderr, "password required") {
		t.Fatalf("without password: %+v", r)
	}
	if out := mustRun(t, db, "ingest", "--password", "S\u00aaSL\u00adprep", f); !strings.Contains(out, "ingested 1 document ") {
		t.Fatalf("with password: %s", out)
	}
}
