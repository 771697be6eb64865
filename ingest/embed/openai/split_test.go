package openai

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

func TestOpenAISplit(t *testing.T) {
	count := analysis.EstimateTokens
	for _, text := range []string{
		strings.Repeat("word ", 1000),
		strings.Repeat("日本語のテキスト", 300),
		strings.Repeat("x", 5000), // no whitespace at all
		"short",
	} {
		for _, limit := range []int{1, 7, 100, 8191} {
			pieces := split(text, limit, count)
			if got := strings.Join(pieces, ""); got != text {
				t.Fatalf("limit %d: pieces do not rebuild the text", limit)
			}
			for _, p := range pieces {
				if !utf8.ValidString(p) {
					t.Fatalf("limit %d: piece cut inside a rune", limit)
				}
				if c := count(p); c > limit && utf8.RuneCountInString(p) > 1 {
					t.Fatalf("limit %d: piece of %d tokens (%q...)", limit, c, p[:min(len(p), 20)])
				}
			}
			if limit >= 100 && len(pieces) > 1 {
				// Cuts fall after whitespace when there is some.
				if strings.Contains(text, " ") && !strings.HasSuffix(pieces[0], " ") {
					t.Errorf("limit %d: cut mid-word: %q", limit, pieces[0][len(pieces[0])-10:])
				}
				// And pieces are not wastefully small.
				if c := count(pieces[0]); c < limit/2 {
					t.Errorf("limit %d: first piece only %d tokens", limit, c)
				}
			}
		}
	}
}

func TestOpenAIPlan(t *testing.T) {
	var pieces []piece
	for i := range 50 {
		pieces = append(pieces, piece{tokens: 1 + i%9, owner: i})
	}
	batches := plan(pieces, 4, 15)
	next := 0
	for _, b := range batches {
		if b[0] != next || b[1] <= b[0] {
			t.Fatalf("batch %v does not continue at %d", b, next)
		}
		tokens := 0
		for _, p := range pieces[b[0]:b[1]] {
			tokens += p.tokens
		}
		if b[1]-b[0] > 4 || tokens > 15 {
			t.Errorf("batch %v: %d inputs, %d tokens; limits 4, 15", b, b[1]-b[0], tokens)
		}
		// Greedy: the next piece would not have fit.
		if b[1] < len(pieces) && b[1]-b[0] < 4 && tokens+pieces[b[1]].tokens <= 15 {
			t.Errorf("batch %v closed early", b)
		}
		next = b[1]
	}
	if next != len(pieces) {
		t.Errorf("batches end at %d of %d", next, len(pieces))
	}
}
