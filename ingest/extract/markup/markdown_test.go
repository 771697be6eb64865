package markup

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// TestMarkdownSyntax pins what a Markdown parser gets right where
// line-by-line patterns did not: code is verbatim, a link or emphasis may
// span lines, reference links and images resolve, nested list markers and
// headings inside lists are syntax, a table's escaped pipe is a pipe.
func TestMarkdownSyntax(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"code span keeps its markers", "Match `**/child*` and `a_b_c`.", "Match **/child* and a_b_c."},
		{"code span with a backslash", "Names with `/`, `\\`.", "Names with /, \\."},
		{"code span with angle brackets", "Run `go get pkg@<tag>` now.", "Run go get pkg@<tag> now."},
		{"indented code is verbatim", "Code:\n\n    x := `raw` * 2\n", "Code:\n\nx := `raw` * 2"},
		{"link over two lines", "See [the long\ntitle](https://example.com/x) here.", "See the long\ntitle here."},
		{"bold over two lines", "**Strong\nwords** stay.", "Strong\nwords stay."},
		{"reference link", "Read the [guide].\n\n[guide]: https://example.com", "Read the guide."},
		{"reference image", "![Build][ci]\n\n[ci]: https://example.com/b.svg", "Build"},
		{"unresolved brackets stay", "Log [2024-01-01][G] started.", "Log [2024-01-01][G] started."},
		{"nested list markers", "* - nested item", "nested item"},
		{"escaped pipe in a table", "| a | b |\n|---|---|\n| `x\\|y` | 1 |", "a b\n\nx|y 1"},
		{"escapes outside code", "\\*not emphasis\\* and \\_this\\_", "*not emphasis* and _this_"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, text, _ := Markdown(tc.src)
			if got := core.CleanText(text); got != tc.want {
				t.Errorf("Markdown(%q) = %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// TestMarkdownHeadingInList checks that a heading inside a list item is a
// heading, as CommonMark has it.
func TestMarkdownHeadingInList(t *testing.T) {
	title, _, heads := Markdown("- #### Note\n\n  Body.\n")
	if got, want := len(heads), 1; got != want {
		t.Fatalf("%d headings, want %d", got, want)
	}
	if got, want := heads[0], (core.Heading{Level: 4, Title: "Note"}); got != want {
		t.Errorf("heading = %+v, want %+v", got, want)
	}
	if got, want := title, "Note"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
}

// FuzzMarkdown checks that any input is read without a panic and that
// every heading's title is text of the document.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# T\n\n**b** [l](u) `c`\n```\ncode\n", "---\nx: y\n---\nSetext\n===\n", "| a |\n|---|\n| `b\\|c` |", "- [x] done\n  > # q\n<div>\n<b>h</b>\n</div>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, text, heads := Markdown(src)
		for _, h := range heads {
			if !strings.Contains(text, h.Title) {
				t.Fatalf("heading %q is not in the text %q", h.Title, text)
			}
		}
	})
}
