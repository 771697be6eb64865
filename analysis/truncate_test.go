package analysis

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateTokens(t *testing.T) {
	text := strings.Repeat("word ", 100)
	if got := TruncateTokens(text, 1000, nil); got != text {
		t.Errorf("a text within the limit was cut to %d bytes", len(got))
	}
	got := TruncateTokens(text, 20, nil)
	if n := EstimateTokens(got); n > 20 || n < 10 {
		t.Errorf("prefix of %d tokens, want 10..20", n)
	}
	if !strings.HasPrefix(text, got) || !strings.HasSuffix(got, " ") {
		t.Errorf("prefix %q is not a prefix cut after whitespace", got)
	}
	// Not even one rune fits: that rune alone, never a broken one.
	if got := TruncateTokens("日本語", 0, nil); got != "日" {
		t.Errorf("TruncateTokens(日本語, 0) = %q, want the first rune", got)
	}
	count := func(s string) int { return utf8.RuneCountInString(s) }
	if got := TruncateTokens("abcdefgh", 3, count); got != "abc" {
		t.Errorf("with a rune counter: %q, want abc", got)
	}
}
