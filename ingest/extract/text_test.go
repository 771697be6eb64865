package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/ingest/extract/markup"
)

func TestCleanText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"ligatures", "ﬁne ﬂour ﬀ", "fine flour ff"},
		{"fullwidth", "ＡＢＣ１２３", "ABC123"},
		{"controls", "a\x00b\x07c\x1bd\u200be\ufefff", "abcdef"},
		{"hyphen join", "a wonder-\nful day", "a wonderful day"},
		{"hyphen join crlf", "exam-\r\nple", "example"},
		{"hyphen keeps capital", "Jean-\nPaul", "Jean-\nPaul"},
		{"hyphen keeps digits", "1990-\n2000", "1990-\n2000"},
		{"hyphen not across paragraph", "end-\n\nstart", "end-\n\nstart"},
		{"soft hyphen", "hyphen\u00adation and co\u00ad\noperate", "hyphenation and cooperate"},
		{"pdfium hyphen marker", "inter\u0002\r\nnational", "international"},
		{"chained hyphens", "a-\nb-\nc", "abc"},
		{"spaces", "  a \t b\u00a0\u2003c  ", "a b c"},
		{"paragraphs kept", "one\ntwo\n\n\n\nthree", "one\ntwo\n\nthree"},
		{"blank lines of spaces", "one\n  \t \n two", "one\n\ntwo"},
		{"form feed", "page one\fpage two", "page one\n\npage two"},
		{"leading trailing", "\n\n  x  \n\n", "x"},
		{"cr only", "a\rb", "a\nb"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := CleanText(tc.in); got != tc.want {
				t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCleanTextIdempotent(t *testing.T) {
	in := "ﬁrst para-\ngraph\n\n\nsecond\t\tline\u00ad\nend\f"
	once := CleanText(in)
	if twice := CleanText(once); twice != once {
		t.Errorf("CleanText not idempotent: %q then %q", once, twice)
	}
}

func TestTextQuality(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want error
	}{
		{"text", "Cats like boxes.", nil},
		{"cjk", "猫は家に愛着がある", nil},
		{"empty", "", ErrNoText},
		{"blank", " \n\n \t", ErrNoText},
		{"replacement", strings.Repeat("\ufffd", 20) + "ok", ErrGarbage},
		{"private use", strings.Repeat("\ue000\ue001", 10) + "abc", ErrGarbage},
		{"some replacement", "a few \ufffd in a long enough sentence", nil},
	} {
		if got := core.TextQuality(tc.in); !errors.Is(got, tc.want) {
			t.Errorf("%s: textQuality = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecodeText(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string
		ok   bool
	}{
		{"utf8", []byte("café"), "café", true},
		{"utf8 bom", []byte("\xef\xbb\xbfcafé"), "café", true},
		{"latin1", []byte("caf\xe9 \x93quoted\x94"), "café “quoted”", true},
		{"utf16le bom", []byte{0xff, 0xfe, 'h', 0, 'i', 0}, "hi", true},
		{"utf16be bom", []byte{0xfe, 0xff, 0, 'h', 0, 'i'}, "hi", true},
		{"binary", []byte{'a', 0, 'b', 1}, "", false},
	} {
		got, ok := markup.DecodeText(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: decodeText = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMediaType(t *testing.T) {
	pdf := []byte("%PDF-1.7\n...")
	for _, tc := range []struct {
		name string
		data []byte
		want string
		ok   bool
	}{
		{"a.pdf", pdf, TypePDF, true},
		{"a.PDF", []byte("garbage"), TypePDF, true},
		{"renamed.bin", pdf, TypePDF, true},
		{"notes.txt", []byte("hello"), TypeText, true},
		{"README.md", []byte("# Title"), TypeMarkdown, true},
		{"page.HTM", []byte("<p>x"), TypeHTML, true},
		{"README", []byte("plain words"), TypeText, true},
		{"index", []byte("<!DOCTYPE html><html><body>x"), TypeHTML, true},
		{"photo.jpg", []byte("\xff\xd8\xff\xe0"), TypeJPEG, true},
		{"scan.TIFF", []byte("II*\x00"), TypeTIFF, true},
		{"report.docx", []byte("PK\x03\x04"), TypeDOCX, true},
		{"book.epub", nil, TypeEPUB, true},
		{"letter.rtf", []byte(`{\rtf1`), TypeRTF, true},
		{"setup.exe", []byte("MZ"), "", false},
		{"main.go", []byte("package main"), "", false},
		{"data.txt", []byte{0, 1, 2, 3}, "", false},
		{"blob", []byte{0, 1, 2, 3}, "", false},
	} {
		got, ok := MediaType(tc.name, tc.data)
		if got != tc.want || ok != tc.ok {
			t.Errorf("MediaType(%q) = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestStringCleaners checks the functions that clean one string: titles
// from document metadata (SASLprep of PDF passwords is tested in pdf).
func TestStringCleaners(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     func(string) string
		cases map[string]string
	}{
		{"cleanTitle", core.CleanTitle, map[string]string{
			"Free Culture":                    "Free Culture",
			"  Cats\n and\thomes ":            "Cats and homes",
			"Microsoft Word - Report on cats": "Report on cats",
			"Microsoft Word - report.doc":     "",
			"102314.docx":                     "",
			"IBM-PDFs.graffle":                "",
			"Untitled":                        "",
			"No Title":                        "",
			"a":                               "",
			"- Benutzerhandbuch":              "Benutzerhandbuch",
			"PDF.js - Wikipedia":              "PDF.js - Wikipedia",
			"Pretest วิชาสามัญ (2564)": "Pretest วิชาสามัญ (2564)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for in, want := range tc.cases {
				if got := tc.f(in); got != want {
					t.Errorf("%s(%q) = %q, want %q", tc.name, in, got, want)
				}
			}
		})
	}
}

// TestExtensions checks that every listed extension is one MediaType
// accepts, since discover skips files by this list.
func TestExtensions(t *testing.T) {
	for _, ext := range Extensions() {
		if !Supported("x" + strings.ToUpper(ext)) {
			t.Errorf("Supported(%q) = false", "x"+ext)
		}
		if _, ok := MediaType("x"+ext, []byte("text")); !ok {
			t.Errorf("MediaType(%q) not accepted", "x"+ext)
		}
	}
}
