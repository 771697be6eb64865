package analysis

import (
	"slices"
	"testing"
)

func TestSetEnglishRules(t *testing.T) {
	t.Cleanup(func() { _ = SetEnglishRules(EnglishRules{}) })
	const text = "Their studies of the running dogs"
	for _, tc := range []struct {
		rules EnglishRules
		want  []string
	}{
		{EnglishRules{}, []string{"studi", "run", "dog"}},
		{EnglishRules{Stop: StopShort}, []string{"studi", "run", "dog"}},
		{EnglishRules{Stop: StopNone}, []string{"their", "studi", "of", "the", "run", "dog"}},
		{EnglishRules{Stem: StemPlural}, []string{"study", "running", "dog"}},
		{EnglishRules{Stop: StopShort, Stem: StemNone}, []string{"studies", "running", "dogs"}},
	} {
		if err := SetEnglishRules(tc.rules); err != nil {
			t.Fatal(err)
		}
		if got := TokenizeAs(text, English); !slices.Equal(got, tc.want) {
			t.Errorf("rules %+v: Tokenize(%q) = %q, want %q", tc.rules, text, got, tc.want)
		}
	}
	if err := SetEnglishRules(EnglishRules{Stem: StemNone + 1}); err == nil {
		t.Error("an unknown stemmer was accepted")
	}
}

func TestStemPlural(t *testing.T) {
	for w, want := range map[string]string{
		"queries": "query", "series": "sery", "horses": "horse", "toes": "toe", "agrees": "agree",
		"dogs": "dog", "corpus": "corpus", "class": "class", "plural": "plural",
	} {
		if got := stemPlural(w); got != want {
			t.Errorf("stemPlural(%q) = %q, want %q", w, got, want)
		}
	}
}
