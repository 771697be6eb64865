package library

import (
	"strings"
	"testing"
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
