package main

import (
	"encoding/json"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// citeCase is one document of TestCitationsOpenTheRightPlace: a phrase that
// appears only in unit (page, slide, sheet, chapter) unit of file, and the
// anchor its citation must carry.
type citeCase struct {
	file, mediaType, phrase string
	units                   int    // units the document has
	anchor                  string // "page=2" for PDFs, "slide-2", or "passage-" (any passage) for one-unit documents
	ocr                     bool   // needs tesseract
}

// filler is unit text without any of the test's phrases.
func filler(name string, unit int) string {
	return fmt.Sprintf("This is part %d of %s.\nIt holds ordinary notes about the weather, the post and visitors.", unit, name)
}

// units returns n units of filler with phrase added to unit k (1-based).
func units(name string, n, k int, phrase string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = filler(name, i+1)
		if i+1 == k {
			out[i] += "\n" + phrase + "."
		}
	}
	return out
}

// longText is a one-unit document of several passages with phrase in a
// paragraph near its middle.
func longText(phrase string) string {
	var b strings.Builder
	for i := range 40 {
		if i == 22 {
			b.WriteString(phrase + ".\n\n")
		}
		fmt.Fprintf(&b, "Paragraph %d records the ordinary business of the day: the weather, the post, the visitors who called before noon and the errands that were left for the afternoon.\n\n", i+1)
	}
	return b.String()
}

const hostile = `<script>alert("owned")</script>`

// writeCiteFixtures writes one document of every format into dir and
// returns the cases; OCR cases only when ocr is set.
func writeCiteFixtures(t *testing.T, dir string, ocr bool) []citeCase {
	t.Helper()
	type fixture struct {
		c    citeCase
		data []byte
	}
	u := func(name, phrase string, n, k int) []string {
		us := units(name, n, k, phrase)
		us[0] += "\n" + hostile
		return us
	}
	sheets := func(phrase string) []string {
		return []string{"Revenue\nmonth | amount\nJanuary | 10", "Costs\nitem | amount\n" + phrase + " | 4200", "Notes\nnone | 0"}
	}
	fs := []fixture{
		{citeCase{file: "report.docx", mediaType: extract.TypeDOCX, phrase: "zeppelin mooring procedures", units: 3, anchor: "page-2"},
			extracttest.DOCX(t, "Zeppelin report", u("report", "zeppelin mooring procedures", 3, 2)...)},
		{citeCase{file: "deck.pptx", mediaType: extract.TypePPTX, phrase: "quokka census results", units: 3, anchor: "slide-3"},
			extracttest.PPTX(t, "Quokka deck", u("deck", "quokka census results", 3, 3)...)},
		{citeCase{file: "budget.xlsx", mediaType: extract.TypeXLSX, phrase: "tungsten invoice settled", units: 3, anchor: "sheet-2"},
			extracttest.XLSX(t, "Budget", sheets("tungsten invoice settled")...)},
		{citeCase{file: "essay.odt", mediaType: extract.TypeODT, phrase: "marzipan recipe ratios", units: 2, anchor: "page-2"},
			extracttest.ODT(t, "Essay", u("essay", "marzipan recipe ratios", 2, 2)...)},
		{citeCase{file: "talk.odp", mediaType: extract.TypeODP, phrase: "glacier melt projections", units: 3, anchor: "slide-2"},
			extracttest.ODP(t, "Talk", u("talk", "glacier melt projections", 3, 2)...)},
		{citeCase{file: "harvest.ods", mediaType: extract.TypeODS, phrase: "saffron harvest yield", units: 3, anchor: "sheet-2"},
			extracttest.ODS(t, "Harvest", sheets("saffron harvest yield")...)},
		{citeCase{file: "book.epub", mediaType: extract.TypeEPUB, phrase: "narwhal migration routes", units: 3, anchor: "chapter-2"},
			extracttest.EPUB(t, "Book", u("book", "narwhal migration routes", 3, 2)...)},
		{citeCase{file: "letter.rtf", mediaType: extract.TypeRTF, phrase: "bassoon repair workshop", units: 2, anchor: "page-2"},
			extracttest.RTF("Letter", u("letter", "bassoon repair workshop", 2, 2)...)},
		{citeCase{file: "guide.md", mediaType: extract.TypeMarkdown, phrase: "origami crane folding sequence", units: 1, anchor: "passage-"},
			[]byte("# Folding guide\n\n" + hostile + "\n\n" + longText("origami crane folding sequence"))},
		{citeCase{file: "page.html", mediaType: extract.TypeHTML, phrase: "kombucha fermentation temperature", units: 1, anchor: "passage-"},
			[]byte("<!doctype html><title>Brewing</title><p>" + strings.ReplaceAll(longText("kombucha fermentation temperature"), "\n\n", "</p><p>") + "</p>")},
		{citeCase{file: "notes.txt", mediaType: extract.TypeText, phrase: "velodrome track banking", units: 1, anchor: "passage-"},
			[]byte(hostile + "\n\n" + longText("velodrome track banking"))},
		{citeCase{file: "harbour.pdf", mediaType: extract.TypePDF, phrase: "records fog on one day in four", units: 3, anchor: "page=2"}, readRepoFile(t, "testdata/pdfs/harbour.pdf")},
	}
	if ocr {
		fs = append(fs,
			fixture{citeCase{file: "scan.pdf", mediaType: extract.TypePDF, phrase: "veterinarians recommend two measured meals", units: 2, anchor: "page=2", ocr: true},
				readRepoFile(t, "ingest/extract/testdata/scans/scan.pdf")},
			fixture{citeCase{file: "orchard.png", mediaType: extract.TypePNG, phrase: "quince hedge that flowers late", units: 1, anchor: "passage-", ocr: true},
				readRepoFile(t, "ingest/extract/testdata/scans/orchard.png")})
	}
	var out []citeCase
	for _, f := range fs {
		if err := os.WriteFile(filepath.Join(dir, f.c.file), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, f.c)
	}
	return out
}

func readRepoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// haveOCR reports whether tesseract is installed; with
// MCPVEC_OCR_TESTS=required (CI) its absence fails the test.
func haveOCR(t *testing.T) bool {
	if _, err := exec.LookPath("tesseract"); err != nil {
		if os.Getenv("MCPVEC_OCR_TESTS") == "required" {
			t.Fatalf("tesseract not found and MCPVEC_OCR_TESTS=required: apt-get install tesseract-ocr")
		}
		t.Logf("tesseract not installed: the scanned PDF and the image are left out (apt install tesseract-ocr; MCPVEC_OCR_TESTS=required makes this a failure)")
		return false
	}
	return true
}

// TestCitationsOpenTheRightPlace ingests one document of every format with
// the real binary, serves them behind a public URL, and follows each
// citation as ChatGPT would: a search for a phrase found in one unit cites
// a URL that opens the PDF at that page, or the text view at an anchor
// whose text holds the phrase; fetch returns the text and metadata.
func TestCitationsOpenTheRightPlace(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := writeCiteFixtures(t, docs, haveOCR(t))
	db := filepath.Join(dir, "lib.db")
	if out := mustRun(t, db, "ingest", docs); !strings.Contains(out, fmt.Sprintf("ingested %d documents", len(cases))) {
		t.Fatalf("ingest: %s", out)
	}
	addr, err := childproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(addr, ":")
	public := "http://localhost:" + port // links must use it, not the address the client dialled
	c := startServe(t, db, nil, "--addr", "127.0.0.1:"+port, "--public-url", public).c
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			top := mcpTopResult(t, c, tc.phrase)
			link, frag, _ := strings.Cut(top.URL, "#")
			if !strings.HasPrefix(link, public+"/docs/") || !strings.HasPrefix(frag, tc.anchor) {
				t.Fatalf("top result %+v: url should be under %s/docs/ with #%s…", top, public, tc.anchor)
			}
			fr := mcpFetchJSON(t, c, top.ID)
			checkFetched(t, tc, top.ID, fr)
			body, ctype := getLink(t, "http://127.0.0.1:"+port+strings.TrimPrefix(link, public))
			if strings.HasPrefix(tc.anchor, "page=") {
				if ctype != "application/pdf" || !strings.HasPrefix(body, "%PDF") {
					t.Errorf("PDF link gave %s %.20q", ctype, body)
				}
				return
			}
			if ctype != "text/html; charset=utf-8" || strings.Contains(body, "<script") {
				t.Fatalf("view is %s and holds markup from the document:\n%s", ctype, body)
			}
			under, ok := viewAfter(body, frag)
			if !ok {
				t.Fatalf("anchor #%s not in the view:\n%s", frag, body)
			}
			if tc.anchor == "passage-" {
				// The anchor marks where the cited passage starts.
				passage, _ := fr.Metadata["passage"].(string)
				if head := words(passage, 8); !strings.HasPrefix(words(under, 1000), head) || !strings.Contains(passage, tc.phrase) {
					t.Errorf("text at #%s = %.200q, want the passage %.200q holding %q", frag, under, passage, tc.phrase)
				}
			} else if !strings.Contains(words(under, 1000), tc.phrase) {
				t.Errorf("text under #%s = %q, want %q in it", frag, under, tc.phrase)
			}
		})
	}
}

type fetched struct {
	ID, Title, Text, URL string
	Metadata             map[string]any
}

func checkFetched(t *testing.T, tc citeCase, id string, fr fetched) {
	t.Helper()
	docID, _, _ := strings.Cut(id, ":")
	md := fr.Metadata
	if fr.ID != id || !strings.Contains(words(fr.Text, 10000), tc.phrase) || md["document_id"] != docID ||
		md["source"] != tc.file || md["media_type"] != tc.mediaType || md["pages"] != float64(tc.units) || fr.Title == "" {
		t.Errorf("fetch %s = %+v", id, fr)
	}
	if !strings.HasPrefix(tc.anchor, "page=") && !strings.Contains(fr.URL, "/view#") {
		t.Errorf("fetch url = %q, want the text view", fr.URL)
	}
}

func mcpFetchJSON(t *testing.T, c *client.Client, id string) fetched {
	t.Helper()
	text, isErr := mcpFetch(t, c, id)
	var fr fetched
	if err := json.Unmarshal([]byte(text), &fr); isErr || err != nil {
		t.Fatalf("fetch %s: %v %s", id, err, text)
	}
	return fr
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// viewAfter returns the text of the view from the element with id anchor
// to the end of its unit (the section it is or lies in), without markup.
func viewAfter(body, anchor string) (string, bool) {
	i := strings.Index(body, ` id="`+anchor+`"`)
	if i < 0 {
		return "", false
	}
	rest := body[i:]
	if j := strings.Index(rest, ">"); j >= 0 {
		rest = rest[j+1:]
	}
	rest, _, _ = strings.Cut(rest, "</section>")
	return html.UnescapeString(tagRE.ReplaceAllString(rest, "")), true
}

// words returns the first n words of s joined by single spaces.
func words(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}
