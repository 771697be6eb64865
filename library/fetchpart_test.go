package library_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/library"
)

// readParts fetches id with a cap of limit characters and follows
// metadata.next_id (at most 1000 parts), returning the parts' texts
// joined, each without the ellipsis of its cut, and how many parts it read.
func readParts(t *testing.T, lib *library.Library, id string, limit int) (string, int) {
	t.Helper()
	var b strings.Builder
	for n := 1; n <= 1000; n++ {
		r, err := lib.Fetch(context.Background(), id, library.FetchOptions{MaxChars: limit})
		if err != nil {
			t.Fatalf("fetch %q (part %d): %v", id, n, err)
		}
		if got := utf8.RuneCountInString(r.Text); got > limit {
			t.Fatalf("part %q is %d characters, over the cap of %d", id, got, limit)
		}
		if r.ID != id {
			t.Errorf("part fetched as %q has id %q", id, r.ID)
		}
		next, _ := r.Metadata["next_id"].(string)
		if cut, _ := r.Metadata["truncated"].(bool); cut != (next != "") {
			t.Fatalf("part %q: truncated %v with next_id %q", id, cut, next)
		}
		if next == "" {
			b.WriteString(r.Text)
			return b.String(), n
		}
		b.WriteString(strings.TrimSuffix(r.Text, "…"))
		id = next
	}
	t.Fatalf("no end of %q after 1000 parts", id)
	return "", 0
}

// TestFetchPartsReadTheWholeText is issue 34 item 5: a text longer than
// the cap is read in full by following next_id, for a document and a
// passage, through multi-byte characters and runs of whitespace longer
// than a part; a negative cap gives the whole text at once.
func TestFetchPartsReadTheWholeText(t *testing.T) {
	f := newFixture(t, library.Options{MaxFetchChars: 40})
	var pages []string
	for i := range 6 {
		pages = append(pages, fmt.Sprintf("Página %d — the keeper’s log, naïve entries %s über alles. %s end.",
			i+1, strings.Repeat("é", i*7), strings.Repeat(" ", i*9)))
	}
	f.Add(t, "log", "log.pdf", "application/pdf", "", pages...)
	ctx := context.Background()
	for _, id := range []string{"log", "log:3"} {
		whole, err := f.Lib.Fetch(ctx, id, library.FetchOptions{MaxChars: -1})
		if err != nil || whole.Metadata["truncated"] != false || whole.Metadata["next_id"] != nil {
			t.Fatalf("whole %s = %+v, %v", id, whole, err)
		}
		if id == "log" && whole.Text != strings.Join(pages, "\n\n") {
			t.Fatalf("whole document = %q", whole.Text)
		}
		for _, limit := range []int{2, 7, 25, 40} {
			got, n := readParts(t, f.Lib, id, limit)
			if got != whole.Text {
				t.Errorf("%s read in %d parts of %d: %q\nwant %q", id, n, limit, got, whole.Text)
			}
			if limit < 25 && n < 3 {
				t.Errorf("%s read in %d parts of %d characters", id, n, limit)
			}
		}
	}
	r, err := f.Lib.Fetch(ctx, "log@10", library.FetchOptions{})
	if err != nil || r.Metadata["offset"] != 10 || r.Metadata["document_id"] != "log" || r.Page != 1 {
		t.Fatalf("log@10 = %+v, %v", r, err)
	}
	for _, bad := range []string{"log@100000", "log:9@1", "nope@1", "@3"} {
		if _, err := f.Lib.Fetch(ctx, bad, library.FetchOptions{}); !errors.Is(err, library.ErrNotFound) {
			t.Errorf("fetch %q: %v, want ErrNotFound", bad, err)
		}
	}
}
