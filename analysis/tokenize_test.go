package analysis

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ...  ", nil},
		{"The cats are running to their homes!", []string{"cat", "run", "home"}},
		{"BZ2_bzDecompressInit failed", []string{"bz2", "bz", "decompress", "init", "bzdecompressinit", "bz2_bzdecompressinit", "fail"}},
		{"--leak-check=full", []string{"leak", "check", "leakcheck", "full", "leakcheck=full"}},
		{"v1.2.3", []string{"v1", "2", "3", "v1.2.3"}},
		{"1,000 cells, p < 0.05.", []string{"1000", "cell", "p", "0.05"}},
		{"IL-6 cross-linking", []string{"il", "6", "il6", "cross", "link", "crosslink"}},
		{"HTTPServer", []string{"http", "server", "httpserver"}},
		{"errno=ENOENT E_NOTFOUND", []string{"errno", "enoent", "errno=enoent", "e", "notfound", "e_notfound"}},
		{"CAFÉ Naïve", []string{"café", "naïve"}},
		{"日本語", []string{"日", "日本", "本", "本語", "語"}},
		{"end- -start", []string{"end", "start"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Tokenize(tc.in)); diff != "" {
			t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestTokenizeIdentifierQueries checks that the ways a user may type an
// identifier share a term with the way a document spells it.
func TestTokenizeIdentifierQueries(t *testing.T) {
	doc := Tokenize("call BZ2_bzDecompressInit with --leak-check=full on IL6 in version v1.2.3")
	for _, q := range []string{"BZ2_bzDecompressInit", "bzDecompressInit", "leak-check=full", "--leak-check", "IL-6", "v1.2.3"} {
		whole := Tokenize(q)
		if !slices.Contains(doc, whole[len(whole)-1]) {
			t.Errorf("query %q: whole term %q not among document terms %q", q, whole[len(whole)-1], doc)
		}
	}
}

func TestTokenizeLongTokenCut(t *testing.T) {
	long := "a" + strings.Repeat("é", 40) // 81 bytes: the cut must land on a rune boundary
	for _, tok := range Tokenize(long + "_x") {
		if len(tok) > maxTokenBytes {
			t.Errorf("token %q is %d bytes, want ≤ %d", tok, len(tok), maxTokenBytes)
		}
		if !utf8.ValidString(tok) {
			t.Errorf("token %q is not valid UTF-8", tok)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	f.Add("BZ2_bzDecompressInit --leak-check=full v1.2.3 日本")
	f.Add("a-.-b,,1,2")
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			if tok == "" || len(tok) > maxTokenBytes {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		}
	})
}

// TestTokenizeStored: TokenizeStored keeps the language's stop words as
// terms of their own, lower-cased and not stemmed, counts them, and
// otherwise gives TokenizeAs's terms in order.
func TestTokenizeStored(t *testing.T) {
	tests := []struct {
		in    string
		lang  Language
		want  []string
		stops int
	}{
		{"", English, nil, 0},
		{"Can I delete the files?", English, []string{"can", "i", "delet", "the", "file"}, 3},
		{"The is_a relation", English, []string{"the", "is", "a", "is_a", "relat"}, 3},
		{"Die Dateien und Verzeichnisse", German, []string{"die", "datei", "dateien", "und", "verzeichnis", "verzeichnisse"}, 2},
	}
	for _, tc := range tests {
		got, stops := TokenizeStored(tc.in, tc.lang)
		if diff := cmp.Diff(tc.want, got); diff != "" || stops != tc.stops {
			t.Errorf("TokenizeStored(%q) = %q, %d stop words, want %q, %d (-want +got):\n%s", tc.in, got, stops, tc.want, tc.stops, diff)
		}
		var content []string
		for _, w := range got {
			if !IsStopWordOf(w, tc.lang) {
				content = append(content, w)
			}
		}
		if want := TokenizeAs(tc.in, tc.lang); !slices.Equal(content, want) {
			t.Errorf("TokenizeStored(%q) without stop words = %q, TokenizeAs gives %q", tc.in, content, want)
		}
	}
}
