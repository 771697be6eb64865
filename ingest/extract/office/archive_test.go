package office

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestArchiveDotDot checks that an entry named "../x" is never looked up:
// an EPUB whose spine points outside the archive reads only its own parts.
func TestArchiveDotDot(t *testing.T) {
	a, err := openArchive(extracttest.Zip(t, "../evil.xhtml", "x", "/abs.xml", "y", `a\b.xml`, "z", "ok.xml", "w"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(a.files), 1; got != want {
		t.Errorf("kept %d entries, want %d (only ok.xml)", got, want)
	}
	for _, tc := range []struct{ from, target, want string }{
		{"OEBPS/content.opf", "../../etc/passwd", "../etc/passwd"},
		{"ppt/slides/slide1.xml", "../notesSlides/n.xml", "ppt/notesSlides/n.xml"},
		{"xl/workbook.xml", "/xl/worksheets/s.xml", "xl/worksheets/s.xml"},
	} {
		if got := resolve(tc.from, tc.target); got != tc.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tc.from, tc.target, got, tc.want)
		}
		if localName(resolve(tc.from, tc.target)) != !strings.HasPrefix(tc.want, "..") {
			t.Errorf("%q: localName disagrees", tc.want)
		}
	}
}
