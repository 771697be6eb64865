package extract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractHTML(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>Do cats  love
	their homes?</title><style>body{color:red}</style><script>var x = "hidden";</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<h1>Cats &amp; homes</h1>
<p>Cats are <b>territorial</b>: they mark<br>their range.</p>
<ul><li>First point</li><li>Second point</li></ul>
<pre>  code   block
  kept</pre>
<noscript>enable js</noscript><template><p>tmpl</p></template>
<p>Image: <img src="x.png" alt="a sleeping cat"> end.</p>
<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
</body></html>`
	doc := mustExtract(t, "cats.html", []byte(page))
	want := &Document{
		Title:     "Do cats love their homes?",
		MediaType: TypeHTML,
		Pages: []string{"Cats & homes\n\nCats are territorial: they mark\ntheir range.\n\nFirst point\nSecond point\n\n" +
			"code block\nkept\n\nImage: a sleeping cat end.\n\na | b\nc | d"},
		Headings: []Heading{{Level: 1, Title: "Cats & homes"}},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("document mismatch (-want +got):\n%s", diff)
	}
}

func TestExtractHTMLTitleFromH1(t *testing.T) {
	doc := mustExtract(t, "x.html", []byte("<body><h1>The <i>Cat</i> Book</h1><p>text</p>"))
	if got, want := doc.Title, "The Cat Book"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
}

func TestExtractHTMLCharset(t *testing.T) {
	page := []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>caf\xe9</p></body></html>")
	doc := mustExtract(t, "x.html", page)
	if got, want := doc.Pages[0], "café"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}

func TestExtractMarkdown(t *testing.T) {
	src := "---\ntitle: front matter\n---\n" +
		"Intro line with **bold**, *italic*, _under_ and `code`.\n\n" +
		"# Cats at *home*\n\n" +
		"> A quoted [link text](https://example.com \"t\") here.\n\n" +
		"- item one\n* item two\n1. numbered\n- [x] done task\n\n" +
		"```go\nfunc main() {}\n```\n\n" +
		"| Name | Age |\n|------|----:|\n| Tom | 3 |\n\n" +
		"![a photo](cat.png) and <span class=\"x\">inline html</span> and <https://go.dev>\n\n" +
		"***\n\n[ref]: https://example.com\n\n" +
		"Sub heading\n-----------\n\nEscaped \\*stars\\* stay.\n"
	doc := mustExtract(t, "notes.md", []byte(src))
	want := &Document{
		Title:     "Cats at home",
		MediaType: TypeMarkdown,
		Pages: []string{"Intro line with bold, italic, under and code.\n\nCats at home\n\n" +
			"A quoted link text here.\n\nitem one\nitem two\nnumbered\ndone task\n\n" +
			"func main() {}\n\nName Age\n\nTom 3\n\n" +
			"a photo and inline html and https://go.dev\n\nSub heading\n\nEscaped *stars* stay."},
		Headings: []Heading{{Level: 1, Title: "Cats at home", Offset: 47}, {Level: 2, Title: "Sub heading", Offset: 202}},
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("document mismatch (-want +got):\n%s", diff)
	}
}

func TestExtractMarkdownTitleFallback(t *testing.T) {
	for src, want := range map[string]string{
		"## Second level\n\ntext":          "Second level",
		"Setext Title\n============\nbody": "Setext Title",
		"no heading at all":                "",
		"## a\n\n# Real title #\n":         "Real title",
	} {
		doc, err := mustExtractor(t).Extract(context.Background(), "x.md", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if doc.Title != want {
			t.Errorf("%q: title = %q, want %q", src, doc.Title, want)
		}
	}
}

func TestExtractPlainText(t *testing.T) {
	doc := mustExtract(t, "notes.txt", []byte("Café notes\r\n\r\n\r\nthe ﬁnal para-\r\ngraph"))
	want := &Document{MediaType: TypeText, Pages: []string{"Café notes\n\nthe final paragraph"}}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("document mismatch (-want +got):\n%s", diff)
	}
}

func TestExtractErrors(t *testing.T) {
	ext := mustExtractor(t)
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty.txt", nil, ErrNoText},
		{"blank.md", []byte("   \n\n\t"), ErrNoText},
		{"markup.md", []byte("---\n***\n"), ErrNoText},
		{"garbage.txt", []byte(strings.Repeat("\ufffd", 50)), ErrGarbage},
		{"script.html", []byte("<script>only()</script>"), ErrNoText},
		{"photo.exe", []byte("MZ\x90\x00"), ErrUnsupported},
		{"broken.pdf", []byte("%PDF-1.4\nthis is not really a pdf"), ErrMalformed},
		{"empty.pdf", testPDF{Pages: [][]string{{}, {}}}.Bytes(t), ErrNoText},
	} {
		_, err := ext.Extract(context.Background(), tc.name, tc.data)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestExtractTooLarge(t *testing.T) {
	ext := newExtractor(t, Options{MaxBytes: 10})
	if _, err := ext.Extract(context.Background(), "a.txt", []byte("eleven byte")); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	if _, err := ext.Extract(context.Background(), "a.txt", []byte("ten bytes!")); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

func TestExtractAfterClose(t *testing.T) {
	ext, err := New(context.Background(), testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := ext.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ext.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	data := testPDF{Pages: [][]string{{"hello"}}}.Bytes(t)
	if _, err := ext.Extract(context.Background(), "a.pdf", data); !errors.Is(err, ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
}
