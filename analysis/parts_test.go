package analysis

import (
	"maps"
	"testing"
)

func TestCompoundParts(t *testing.T) {
	for _, c := range []struct {
		text string
		want map[string]int
	}{
		{"plain words only", nil},
		{"floating-point IL-6 cross-linking 1,000 0.05", nil},                 // prose compounds, numbers
		{"l'utente post-installazione, Alzheimer's", nil},                     // apostrophes join prose too
		{"iso_8859-1 and python3.11", map[string]int{"iso": 1, "python3": 1}}, // numbers tell identifiers apart
		{"RefUnwindSafe", map[string]int{"ref": 1, "unwind": 1, "safe": 1}},
		{"impl<I> RefUnwindSafe for FromIter<I>", map[string]int{"ref": 1, "unwind": 1, "safe": 1, "iter": 1}}, // "from" is a stop word
		{"sort_func and sort_key", map[string]int{"sort": 2, "func": 1, "key": 1}},
		{"Global.icodes.Local", map[string]int{"global": 1, "icod": 1, "local": 1}},
		{"std::panic::RefUnwindSafe", map[string]int{"std": 1, "panic": 1, "ref": 1, "unwind": 1, "safe": 1}},
		{"pre-miRNA", map[string]int{"pre": 1, "mi": 1, "rna": 1}}, // a camelCase split makes it code-like
	} {
		if got := CompoundParts(c.text, English); !maps.Equal(got, c.want) {
			t.Errorf("CompoundParts(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestCompoundPartsAreTerms: every part counted is a term TokenizeAs gives
// the text, at most as many times.
func TestCompoundPartsAreTerms(t *testing.T) {
	for _, text := range []string{
		"impl<'a, P> for MatchIndices<'a, P> where P: Pattern<'a>,",
		"Glib::PropertyProxy_ReadOnly< Glib::ustring > Gtk::Settings::property_gtk_decoration_layout ( )",
		"BZ2_bzDecompressInit --leak-check=full v1.2.3 errno=ENOENT user@example.com",
		"Die Datei-Berechtigungen von getFileName() prüfen",
	} {
		lang := Detect(text)
		n := map[string]int{}
		for _, tok := range TokenizeAs(text, lang) {
			n[tok]++
		}
		for p, c := range CompoundParts(text, lang) {
			if c > n[p] {
				t.Errorf("%q: part %q counted %d times, TokenizeAs gives it %d", text, p, c, n[p])
			}
		}
	}
}
