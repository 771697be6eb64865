package library_test

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library"
)

// marked renders spans with [brackets] around the marked ones.
func marked(spans []library.Span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.Mark {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

func TestHighlight(t *testing.T) {
	for _, c := range []struct{ text, query, want string }{
		{"Cats sleep; a cat's home is its castle.", "cats", "[Cats] sleep; a [cat]'s home is its castle."},
		{"Catalogues of cats", "cat", "Catalogues of [cats]"},
		{"Studies of a study: studying", "study", "[Studies] of a [study]: [studying]"},
		{"The otter and the beaver", "the otters", "The [otter] and the beaver"},
		{"leak-check=full was set", "leak-check", "[leak]-[check]=full was set"},
		{"東京の猫", "猫", "東京の[猫]"},
		// manpages-zh 1.6.4.0-1, ls(1): a word is marked whole, a character
		// only for a one-character query, not wherever it occurs.
		{"列出指定文件（默认为当前目录）的信息。", "目录", "列出指定文件（默认为当前[目录]）的信息。"},
		{"列出指定文件（默认为当前目录）的信息。", "录", "列出指定文件（默认为当前目[录]）的信息。"},
		{"列出目录内容", "目录内容", "列出[目录内容]"},
		// manpages-de 4.18.1-1, rm(1): a German passage is read with the
		// German stemmer, so Verzeichnisse marks Verzeichnis.
		{"Standardmäßig werden keine Verzeichnisse entfernt. Die Datei und das Verzeichnis bleiben.", "Verzeichnisse",
			"Standardmäßig werden keine [Verzeichnisse] entfernt. Die Datei und das [Verzeichnis] bleiben."},
		{"nothing here", "zebra", "nothing here"},
		{"only stopwords", "the and of", "only stopwords"},
		{"", "cats", ""},
	} {
		spans := library.Highlight(c.text, c.query)
		if got := marked(spans); got != c.want {
			t.Errorf("Highlight(%q, %q) = %q, want %q", c.text, c.query, got, c.want)
		}
		var joined strings.Builder
		for _, s := range spans {
			joined.WriteString(s.Text)
		}
		if joined.String() != c.text {
			t.Errorf("Highlight(%q, %q): spans join to %q", c.text, c.query, joined.String())
		}
	}
}
