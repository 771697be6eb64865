package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/server/web"
)

// TestLibraryPageKeepsItsRows: paging through the library page in an order
// other than by title (which the store pages alone: TestLibraryPageByTitle) and
// viewing it again lists, filters and sorts the documents once per order
// (a view of 250,000 documents took about 2 s when every view did), the
// pages kept are the same as those built, and a write lists them again
// with the new document on the next view.
func TestLibraryPageKeepsItsRows(t *testing.T) {
	defer web.SetLibraryPageSize(1)()
	f := mustServe(t, fixtureOptions{})
	c := newClient(t)
	builds, restore := web.CountListBuilds()
	defer restore()
	_, p1 := get(t, c, f.URL+"/?sort=size&dir=asc")
	_, p2 := get(t, c, f.URL+"/?sort=size&dir=asc&page=2")
	_, again := get(t, c, f.URL+"/?sort=size&dir=asc")
	if got, want := builds(), 1; got != want {
		t.Fatalf("three views of one order built the listing %d times, want %d", got, want)
	}
	if again != p1 || p1 == p2 {
		t.Fatalf("the kept view differs from the first one (or page 2 equals page 1):\n%s\n---\n%s", p1, again)
	}
	get(t, c, f.URL+"/?sort=pages&dir=desc")
	if got, want := builds(), 2; got != want {
		t.Fatalf("a second order: %d listings built, want %d", got, want)
	}
	herons := filepath.Join(f.Dir, "herons.txt")
	os.WriteFile(herons, []byte("Herons stand still in the shallows and wait for fish.\n"), 0o600)
	if _, err := f.Ingest(context.Background(), []string{herons}); err != nil {
		t.Fatal(err)
	}
	_, after := get(t, c, f.URL+"/?sort=title&dir=asc&q=herons")
	if !strings.Contains(after, "herons.txt") || !strings.Contains(after, "Showing 1 of 3.") {
		t.Fatalf("the view after an ingest lacks the new document:\n%s", after)
	}
}
