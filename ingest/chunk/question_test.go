package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// faq returns a FAQ of n questions, each a line ending in "?" followed by
// an answer of one to three paragraphs of varying length, and the byte
// ranges [question start, answer end) of each pair.
func faq(n int) (string, [][2]int) {
	var b strings.Builder
	var pairs [][2]int
	b.WriteString("Frequently asked questions about the cat flap\n\n")
	for q := range n {
		start := b.Len()
		fmt.Fprintf(&b, "%d. How does the flap handle case number %d?\n\n", q+1, q+1)
		for p := range 1 + q%3 {
			if p > 0 {
				b.WriteString("\n\n")
			}
			for s := range 2 + (q*7+p*3)%5 {
				fmt.Fprintf(&b, "The flap reads the microchip of cat %d and opens for sentence %d only. ", q+1, s+1)
			}
		}
		pairs = append(pairs, [2]int{start, len(strings.TrimRight(b.String(), " "))})
		b.WriteString("\n\n")
	}
	return b.String(), pairs
}

// TestSplitKeepsQuestionWithAnswer: a FAQ is cut before questions, so each
// question and its whole answer share a passage, within the size bound.
func TestSplitKeepsQuestionWithAnswer(t *testing.T) {
	text, pairs := faq(40)
	opts := DefaultOptions()
	chunks, err := Split(text, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	split := 0
	for _, p := range pairs {
		whole := false
		for _, c := range chunks {
			whole = whole || (c.Start <= p[0] && p[1] <= c.End)
		}
		if !whole {
			split++
			t.Errorf("question at %d: %.50q is not in one passage with its whole answer", p[0], text[p[0]:])
		}
	}
	dangling := 0 // passages whose last line is a question
	for i, c := range chunks {
		if got := analysis.EstimateTokens(c.Text); got > opts.Size {
			t.Errorf("passage %d: %d tokens, limit %d", i, got, opts.Size)
		}
		if strings.HasSuffix(c.Text, "?") {
			dangling++
			t.Errorf("passage %d ends on a question: %q", i, c.Text[max(0, len(c.Text)-50):])
		}
	}
	t.Logf("%d passages, %d of %d question-answer pairs split, %d passages end on a question", len(chunks), split, len(pairs), dangling)
}

func TestQuestionLevel(t *testing.T) {
	for _, c := range []struct {
		text string
		want level
	}{
		{"Answer ends.\n\nWhat is a cat flap?\n\nA door.", levelQuestion},
		{"Answer ends.\nQ: can it lock\nA: yes", levelQuestion},
		{"Answer ends.\n\nQuestion 3. Locking\n\nYes.", levelQuestion},
		{"Answer ends.\n\n**Locking**\n\nYes.", levelQuestion},
		{"the flap, which\nopens both ways?\nYes.", levelLine}, // a wrapped line, not after a sentence end
		{"Answer ends.\n\nA plain paragraph.", levelParagraph},
	} {
		i := strings.IndexAny(c.text, "\n")
		j := i + len(c.text[i:]) - len(strings.TrimLeft(c.text[i:], "\n"))
		lv := levelParagraph
		if j-i == 1 {
			lv = levelSentence
			if !strings.HasSuffix(c.text[:i], ".") {
				lv = levelLine
			}
		}
		if got := questionLevel(c.text, i, j, lv); got != c.want {
			t.Errorf("%q: level %d, want %d", c.text, got, c.want)
		}
	}
	text := "What is a cat flap?\n\nA door."
	if got := questionLevel(text, 19, 21, levelParagraph); got != levelWord {
		t.Errorf("after a question: level %d, want %d (no better than a space)", got, levelWord)
	}
}
