package lexical

import (
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index/indextest"
)

// German passages from manpages-de 4.18.1-1 (ls(1), cp(1), rm(1); GPL-3+)
// and an English one.
var mixedCorpus = map[uint64]string{
	1: "Auflistung von Informationen über die DATEIen (Standardvorgabe ist das aktuelle Verzeichnis). Die Einträge werden alphabetisch sortiert, falls weder -cftuvSUX noch --sort angegeben wurden.",
	2: "Kopiert QUELLE nach ZIEL, oder mehrere QUELLEn in das VERZEICHNIS. Die obligatorischen Argumente für Optionen sind für deren Kurz- und Langform gleich.",
	3: "Diese Handbuchseite dokumentiert die GNU-Version von rm. rm entfernt jede angegebene Datei. Standardmäßig werden keine Verzeichnisse entfernt.",
	4: "The cats are attached to their homes and the directories they sleep in.",
}

func mixedIndex() *Index {
	ix := New(DefaultConfig())
	for id, text := range mixedCorpus {
		ix.Add(id, text)
	}
	return ix
}

// TestSearchQueryOtherLanguage: a short German query, read as English by
// analysis.Detect (no stop words), still finds the German passage,
// because the index holds mostly German passages and the query is read in
// that language: "entfernen Verzeichnisse" meets rm's "Verzeichnisse
// entfernt" only through the German stem entfern. An English query in
// the same index is still read as English (its stop word "the").
func TestSearchQueryOtherLanguage(t *testing.T) {
	ix := mixedIndex()
	if got, want := ix.Languages(), []analysis.Language{analysis.German}; !slices.Equal(got, want) {
		t.Fatalf("Languages() = %v, want %v", got, want)
	}
	q := "entfernen Verzeichnisse"
	if analysis.Detect(q) != analysis.English {
		t.Fatalf("the query should be one Detect cannot tell")
	}
	rs := ix.SearchQuery(q, nil, 3)
	if len(rs) == 0 || rs[0].ID != 3 {
		t.Errorf("SearchQuery(%q) = %v, want passage 3 first", q, rs)
	}
	if rs := ix.SearchTokens(analysis.Tokenize(q), 3); len(rs) > 0 && rs[0].ID == 3 {
		t.Logf("(the English reading alone also ranks it first: %v)", rs)
	}
	if rs := ix.SearchQuery("the cats homes", nil, 3); len(rs) != 1 || rs[0].ID != 4 {
		t.Errorf("English query: %v, want passage 4 alone", rs)
	}
}

// TestLanguagesSurviveSaveLoad: the languages an index holds are terms,
// saved and loaded with the others.
func TestLanguagesSurviveSaveLoad(t *testing.T) {
	kv := indextest.NewKV()
	if err := mixedIndex().Save(kv); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(kv, DefaultConfig(), indextest.Sorted(mixedCorpus))
	if err != nil {
		t.Fatal(err)
	}
	if langs := got.Languages(); !slices.Equal(langs, []analysis.Language{analysis.German}) {
		t.Errorf("Languages() after Load = %v", langs)
	}
	if StoredVersion(kv) != analysis.TokenizerVersion {
		t.Errorf("StoredVersion = %q", StoredVersion(kv))
	}
}

// TestSearchCJKBigrams: Chinese passages (manpages-zh 1.6.4.0-1, ls(1)
// and cp(1)) are found by a two-character word and by one character.
func TestSearchCJKBigrams(t *testing.T) {
	ix := New(DefaultConfig())
	ix.Add(1, "列出指定“文件”（默认为当前目录）的信息。如果既没有指定 -cftuvSUX 中任何一个，也没有指定 --sort，则按字母排序项目。")
	ix.Add(2, "将来源复制到目的地，或将多个来源复制到目录。")
	for _, tc := range []struct {
		q    string
		want uint64
	}{{"排序", 1}, {"复制", 2}, {"序", 1}} {
		if rs := ix.Search(tc.q, 2); len(rs) == 0 || rs[0].ID != tc.want {
			t.Errorf("Search(%q) = %v, want %d first", tc.q, rs, tc.want)
		}
	}
}

// TestSearchQueryMinorityLanguage: in an index mostly of English, a German
// query without stop words, whose English reading matches nothing, is
// read as German, the other language the index holds.
func TestSearchQueryMinorityLanguage(t *testing.T) {
	ix := New(DefaultConfig())
	ix.Add(1, mixedCorpus[3])
	ix.Add(2, mixedCorpus[4])
	ix.Add(3, "The directories are listed in the order of their names.")
	ix.Add(4, "Remove the files and the directories that are empty.")
	if rs := ix.SearchQuery("Verzeichnis entfernen", nil, 2); len(rs) == 0 || rs[0].ID != 1 {
		t.Errorf("SearchQuery = %v, want passage 1 first", rs)
	}
}

// TestQueryRunTerms: a query's CJK word is searched by its bigrams, a
// lone character by itself, other terms as they are.
func TestQueryRunTerms(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"目录", []string{"目录"}},
		{"列出目录", []string{"列出", "出目", "目录"}},
		{"序", []string{"序"}},
		{"ls 目录 序", []string{"ls", "目录", "序"}},
		{"cats", []string{"cat"}},
	} {
		if got := queryRunTerms(analysis.Tokenize(c.q)); !slices.Equal(got, c.want) {
			t.Errorf("queryRunTerms(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestSearchQueryEnglishStopWords: a short English query whose only
// stop words Detect's short English list leaves out ("a", "when") but
// Portuguese's holds ("a") is still read as English in an index holding
// Portuguese passages, and the c of a file name is no French stop word:
// each query finds its English passage, which the Portuguese or French
// reading (unstemmed English words) missed.
func TestSearchQueryEnglishStopWords(t *testing.T) {
	ix := New(DefaultConfig())
	ix.Add(1, "A reference to a simple scalar: this example shows what a reference looks like when the scalar is copied.")
	ix.Add(2, "The notification group reports events; see the program source fanotify_example.c below.")
	ix.Add(3, "O programa mostra a lista dos arquivos e a data de cada um, com os nomes que o usuário escolheu para eles.")
	ix.Add(4, "Le programme affiche la liste des fichiers et la date de chacun, avec les noms que l'utilisateur a choisis.")
	if got, want := ix.Languages(), []analysis.Language{analysis.French, analysis.Portuguese}; !slices.Equal(got, want) {
		t.Fatalf("Languages() = %v, want %v", got, want)
	}
	for _, c := range []struct {
		q    string
		want uint64
	}{
		{"This shows a reference looks like when a", 1},
		{"source: fanotify_example.c", 2},
	} {
		// The same passages in the same order (the scores differ where
		// the query names an identifier, whose words SearchQuery weighs
		// less, query_parts.go).
		english := ix.SearchTokens(analysis.TokenizeAs(c.q, analysis.English), 2)
		if rs := ix.SearchQuery(c.q, nil, 2); len(rs) == 0 || rs[0].ID != c.want || !slices.Equal(resultIDs(rs), resultIDs(english)) {
			t.Errorf("SearchQuery(%q) = %v, want passage %d first as the English reading ranks it: %v", c.q, rs, c.want, english)
		}
	}
}

func resultIDs(rs []Result) []uint64 {
	ids := make([]uint64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}
