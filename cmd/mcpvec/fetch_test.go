package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// bookText is a text of about n characters in numbered paragraphs, with
// multi-byte characters, so a cut anywhere shows.
func bookText(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Paragraph %d. The lighthouse keeper’s log — entry %d: wind %d knots, naïve gulls, café at dawn.\n\n", i, i*7, i%60)
	}
	return b.String()
}

// TestFetchWholeTextAndParts is issue 34 item 5: `mcpvec fetch DOC_ID`
// prints the whole text of a document far longer than any cap (it stopped
// at 100,000 characters); --max-chars cuts it and names the id that reads
// on; over MCP the text is cut at --max-fetch-chars and following
// metadata.next_id reads it all, equal to the CLI's whole text.
func TestFetchWholeTextAndParts(t *testing.T) {
	t.Parallel()
	dir, db := tempLib(t)
	book := writeFile(t, filepath.Join(dir, "book.txt"), bookText(150_000))
	mustRun(t, db, "ingest", book)
	id := docID(t, db, book)

	whole := fetchJSON(t, db, id)
	if n := utf8.RuneCountInString(whole.Text); whole.Metadata["truncated"] != false || n < 140_000 ||
		!strings.Contains(whole.Text, "Paragraph 1.") || !strings.HasSuffix(strings.TrimSpace(bookText(150_000)), lastLine(whole.Text)) {
		t.Fatalf("mcpvec fetch %s: %d characters, truncated %v, ends %q; want the whole book", id, n, whole.Metadata["truncated"], lastLine(whole.Text))
	}
	r := mcpvec(t, db, "fetch", "--max-chars", "5000", id)
	if r.code != 0 || utf8.RuneCountInString(r.stdout) > 5200 || !strings.Contains(r.stderr, "mcpvec fetch "+id+"@") {
		t.Fatalf("fetch --max-chars 5000: exit %d, %d characters, stderr %q", r.code, utf8.RuneCountInString(r.stdout), r.stderr)
	}

	c := startServe(t, db, nil, "--max-fetch-chars", "20000").c
	if fwd := fetchJSON(t, db, id); fwd.Text != whole.Text { // handed to the server, which caps MCP only
		t.Fatalf("mcpvec fetch while serving: %d characters, want %d", utf8.RuneCountInString(fwd.Text), utf8.RuneCountInString(whole.Text))
	}
	var read strings.Builder
	part, parts := id, 0
	for ; part != "" && parts < 50; parts++ {
		fr := mcpFetchJSON(t, c, part)
		if n := utf8.RuneCountInString(fr.Text); n > 20000 {
			t.Fatalf("MCP fetch %s: %d characters, over the cap", part, n)
		}
		part, _ = fr.Metadata["next_id"].(string)
		if part != "" {
			fr.Text = strings.TrimSuffix(fr.Text, "…")
		}
		read.WriteString(fr.Text)
	}
	if part != "" || parts < 8 || read.String() != whole.Text {
		t.Fatalf("read over MCP in %d parts (next %q): %d characters, want the CLI's %d", parts, part,
			utf8.RuneCountInString(read.String()), utf8.RuneCountInString(whole.Text))
	}
}

// fetchJSON is `mcpvec fetch --json id` on db.
func fetchJSON(t *testing.T, db, id string) fetched {
	t.Helper()
	var fr fetched
	if err := json.Unmarshal([]byte(mustRun(t, db, "fetch", "--json", id)), &fr); err != nil {
		t.Fatal(err)
	}
	return fr
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
