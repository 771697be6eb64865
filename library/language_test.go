package library

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// TestSnippetFindsCJKWord: the snippet of a Chinese passage (manpages-zh
// 1.6.4.0-1, ls(1)) is cut around the sentence that holds the query's
// word, which sits inside a run of characters, not at its start.
func TestSnippetFindsCJKWord(t *testing.T) {
	text := "列出指定文件的信息。\n\n如果既没有指定任何一个选项，也没有指定排序方式，则按字母排序项目。\n\n必选参数对长短选项同时适用。"
	got, _ := snippet(text, queryTerms("字母"), 40) // 。 ends no sentence: the paragraph is the unit
	if !strings.Contains(got, "按字母排序") {
		t.Errorf("snippet = %q, want the sentence holding 字母", got)
	}
}

// TestSnippetGermanPassage: a German passage's snippet finds the query's
// words by their German stems (manpages-de 4.18.1-1, rm(1)).
func TestSnippetGermanPassage(t *testing.T) {
	text := "Diese Handbuchseite dokumentiert die GNU-Version von rm. rm entfernt jede angegebene Datei.\n\nStandardmäßig werden keine Verzeichnisse entfernt, und das ist auch gut so."
	got, _ := snippet(text, queryTerms("Verzeichnis"), 60)
	if !strings.Contains(got, "Verzeichnisse") {
		t.Errorf("snippet = %q, want the sentence holding Verzeichnisse", got)
	}
}

// TestSnippetLanguageRemembered: a search's snippets, which take each
// passage's language from passageLangs, are the snippets of the passage's
// language as analysis.Detect reads it, on first sight and when the
// answer is remembered, for passages of eight languages padded to one
// length (so that only their hash tells them apart) and the query of
// each language.
func TestSnippetLanguageRemembered(t *testing.T) {
	texts, queries := manpageSamples(t)
	texts = append(texts, "The cat sat on the mat. Directories are listed in alphabetical order, and the contents are shown by default.")
	queries = append(queries, "list directory contents")
	n := 0
	for _, x := range texts {
		n = max(n, len(x))
	}
	for i, x := range texts {
		texts[i] = x + strings.Repeat(" ", n-len(x))
	}
	passageLangs.reset()
	for round := range 2 {
		for _, q := range queries {
			sel := selection{terms: queryTerms(q), maxChars: 60}
			for i := range texts {
				x := texts[(i+round)%len(texts)] // another order each round
				sel.choose(&store.Chunk{DocID: "d", Text: x}, keyOf(x), 1)
				got := sel.chosen[len(sel.chosen)-1].snippet
				if want, _ := snippet(x, queryTerms(q), 60); got != want {
					t.Fatalf("round %d, query %q: snippet %q, want %q", round, q, got, want)
				}
			}
		}
	}
}

// manpageSamples returns the passages and queries of
// analysis/testdata/manpages.tsv (language, query, passage).
func manpageSamples(t *testing.T) (texts, queries []string) {
	t.Helper()
	b, err := os.ReadFile("../analysis/testdata/manpages.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 && !strings.HasPrefix(line, "#") {
			queries, texts = append(queries, f[1]), append(texts, f[2])
		}
	}
	if len(texts) < 7 {
		t.Fatalf("%d samples", len(texts))
	}
	return texts, queries
}
