package analysis

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// manpage is a line of testdata/manpages.tsv: a language, a page's NAME
// description and a passage of that page.
type manpage struct{ lang, query, text string }

func readManpages(t *testing.T) []manpage {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "manpages.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []manpage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p := strings.Split(sc.Text(), "\t"); len(p) == 3 && !strings.HasPrefix(p[0], "#") {
			out = append(out, manpage{p[0], p[1], p[2]})
		}
	}
	return out
}

// TestDetectManpages: each translated passage is read as its language
// (Chinese, Japanese and Polish have no stemmer: they are English, whose
// rules leave them alone; Polish was read as Portuguese), and the English
// samples stay English.
func TestDetectManpages(t *testing.T) {
	for _, m := range readManpages(t) {
		want, ok := ParseLanguage(m.lang)
		if !ok {
			want = English
		}
		if got := Detect(m.text); got != want {
			t.Errorf("Detect(%s passage) = %s, want %s", m.lang, got, want)
		}
	}
	for _, s := range readSamples(t) {
		if s.ID == "en" || s.ID == "code" || s.ID == "markdown" {
			if got := Detect(s.Text); got != English {
				t.Errorf("Detect(sample %s) = %s, want en", s.ID, got)
			}
		}
	}
}

// TestTokenizeManpageQueries: a page's one-line description, tokenised as
// its language, shares a stemmed term with the page's passage that it
// would not share unstemmed: "auflisten" meets "Auflistung" (German),
// "afficher" meets "Afficher", "contenido"/"directorio" need the Spanish
// rules, Russian "выводит" meets "Выводит".
func TestTokenizeManpageQueries(t *testing.T) {
	for _, m := range readManpages(t) {
		lang := Detect(m.text)
		doc := TokenizeAs(m.text, lang)
		shared := 0
		for _, q := range TokenizeAs(m.query, lang) {
			if slices.Contains(doc, q) {
				shared++
			}
		}
		if shared == 0 {
			t.Errorf("%s: query %q shares no term with its page (query terms %q)", m.lang, m.query, TokenizeAs(m.query, lang))
		}
	}
}

func TestTokenizeAsGerman(t *testing.T) {
	got := TokenizeAs("Die Verzeichnisse werden aufgelistet", German)
	want := []string{"verzeichnis", "verzeichnisse", "aufgelistet"} // the stem, and the word where it differs
	if !slices.Equal(got, want) {
		t.Errorf("TokenizeAs(German) = %q, want %q", got, want)
	}
	if got, want := Tokenize("Auflistung von Informationen über die Dateien und Verzeichnisse"), TokenizeAs("Auflistung von Informationen über die Dateien und Verzeichnisse", German); !slices.Equal(got, want) {
		t.Errorf("Tokenize of German prose = %q, want the German rules' %q", got, want)
	}
}

// TestTokenizeUnspacedRuns: runs of CJK (and Thai) characters give their
// bigrams and characters; a lone character is itself; Latin words inside
// keep their own rules.
func TestTokenizeUnspacedRuns(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"目录", []string{"目", "目录", "录"}},
		{"列出目录内容", []string{"列", "列出", "出", "出目", "目", "目录", "录", "录内", "内", "内容", "容"}},
		{"猫", []string{"猫"}},
		{"ls - 列出 FILES", []string{"ls", "列", "列出", "出", "file"}},
		{"データー", []string{"デ", "デー", "ー", "ータ", "タ", "ター", "ー"}},
		{"고양이", []string{"고", "고양", "양", "양이", "이"}},
		{"แมว", []string{"แ", "แม", "ม", "มว", "ว"}},
	}
	for _, tc := range tests {
		if got := Tokenize(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestWordsUnspacedRuns: the hash embedder's words of a CJK run are its
// bigrams; WordsWhole keeps the run whole, as hash-v2 did.
func TestWordsUnspacedRuns(t *testing.T) {
	if got, want := Words("ls 列出目录 cats"), []string{"ls", "列出", "出目", "目录", "cats"}; !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	if got, want := Words("Linux版のar3 x版"), []string{"linux", "版の", "ar3", "x", "版"}; !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want) // letters before and after a run in one field
	}
	if got, want := Words("猫"), []string{"猫"}; !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	if got, want := WordsWhole("ls 列出目录 cats"), []string{"ls", "列出目录", "cats"}; !slices.Equal(got, want) {
		t.Errorf("WordsWhole = %q, want %q", got, want)
	}
}

// TestMixedScriptsNoPanic runs Tokenize and Words over random mixes of
// CJK, Latin, digits, marks and punctuation in one field (a Latin tail
// after a CJK run once cut a slice wrongly).
func TestMixedScriptsNoPanic(t *testing.T) {
	parts := []string{"列", "版の", "a", "Ab", "x1", " ", "ー", "é", "\u0301", "-", "แม", "고", "'", "."}
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		for _, w := range append(Words(s), Tokenize(s)...) {
			if w == "" {
				t.Fatalf("empty word from %q", s)
			}
		}
	}
}

// TestCountQueryStopWords: English counts every word Tokenize drops from
// English ("a", "when"), and letters inside identifiers, file names and
// addresses are no stop words, while elided words (l'option) are.
func TestCountQueryStopWords(t *testing.T) {
	for _, c := range []struct {
		q              string
		en, pt, fr, es int
	}{
		{q: "This shows a reference looks like when a", en: 4, pt: 2, es: 0},
		{q: "source: fanotify_example.c", en: 0, fr: 0},
		{q: "commit(l) and a.b@example.org", en: 1, fr: 0}, // the l of commit(l) is no French l'
		{q: "l'option de la commande", en: 0, pt: 1, fr: 3, es: 1},
		// One letter against code punctuation, or a capital inside the
		// text, names a variable or a type parameter.
		{q: "c(Module, Options, Filter) -> {ok, ModuleName} errorOTP", fr: 0},
		{q: "def ->[B](y: (MatchOptimizer, B)", es: 0},
		{q: "impl<A: ?Sized> A where A: Eq,", en: 1, pt: 0, es: 0},
		{q: "typename _Alloc typedef C", fr: 0},
		// Letters written as words still count.
		{q: "Copiar y pegar", es: 1},
		{q: "A la carte", en: 1, pt: 1, fr: 1, es: 1},
		{q: "de la maison à la mer", fr: 4, es: 2, pt: 1},
	} {
		got := CountQueryStopWords(c.q)
		if got.Of(English) != c.en || got.Of(Portuguese) != c.pt || got.Of(French) != c.fr || got.Of(Spanish) != c.es {
			t.Errorf("CountQueryStopWords(%q): en %d pt %d fr %d es %d, want %d %d %d %d", c.q,
				got.Of(English), got.Of(Portuguese), got.Of(French), got.Of(Spanish), c.en, c.pt, c.fr, c.es)
		}
	}
}
