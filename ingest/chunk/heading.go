package chunk

import (
	"fmt"
	"strings"

	"github.com/mcpvec/mcpvec/analysis"
)

func validateHeadings(heads []Heading, n int) error {
	prev := 0
	for i, h := range heads {
		if h.Offset < prev || h.Offset > n {
			return fmt.Errorf("%w: heading %d at offset %d", ErrInvalidHeadings, i+1, h.Offset)
		}
		prev = h.Offset
	}
	return nil
}

// markSection makes the gap before a, the atom just added, the best place
// to cut when a is the first atom of a heading (the first at or after its
// offset), unless a is the text's first atom.
func (s *splitter) markSection(a analysis.Atom) {
	for s.marked < len(s.heads) && s.heads[s.marked].Offset <= a.Start {
		if s.seen > 0 {
			s.levels[len(s.levels)-1] = levelSection
		}
		s.marked++
	}
}

// headingPath follows the headings in force as the offset it is asked
// about grows.
type headingPath struct {
	text  string
	heads []Heading
	next  int       // heads[next] is the first heading not yet seen
	open  []Heading // the headings in force, outermost first
}

// at returns the titles of the headings in force at off, which must not be
// smaller than in the previous call; nil when there are none. Headings
// that follow off with only whitespace and other headings' titles between
// are in force too: a passage starting "Part A / Section 1 / text" is
// about Section 1.
func (p *headingPath) at(off int) []string {
	end := off
	for p.next < len(p.heads) {
		h := p.heads[p.next]
		if h.Offset > end && strings.TrimSpace(p.text[end:h.Offset]) != "" {
			break
		}
		for len(p.open) > 0 && p.open[len(p.open)-1].Level >= h.Level {
			p.open = p.open[:len(p.open)-1]
		}
		p.open = append(p.open, h)
		p.next++
		end = max(end, h.Offset)
		if tail := p.text[h.Offset:]; len(tail) >= len(h.Title) && strings.EqualFold(tail[:len(h.Title)], h.Title) {
			end = max(end, h.Offset+len(h.Title))
		}
	}
	if len(p.open) == 0 {
		return nil
	}
	titles := make([]string, len(p.open))
	for i, h := range p.open {
		titles[i] = h.Title
	}
	return titles
}

// over returns the heading path of a passage whose new text (after what
// it repeats of the previous passage) is text[start:end]: the path in
// force over most of that text, counted in non-space bytes, the earlier
// one on a tie. So a passage holding the last lines of one section and
// most of the next is filed under the next; one that starts a section
// and runs briefly into the next stays under the first. start must not
// be smaller than in the previous call, nor smaller than the previous
// end.
func (p *headingPath) over(start, end int) []string {
	cur := p.at(start)
	best, bestWeight, from := cur, -1, start
	for p.next < len(p.heads) && p.heads[p.next].Offset < end {
		off := max(p.heads[p.next].Offset, from)
		if w := nonSpace(p.text[from:off]); w > bestWeight {
			best, bestWeight = cur, w
		}
		cur, from = p.at(off), off
	}
	if nonSpace(p.text[from:end]) > bestWeight {
		best = cur
	}
	return best
}

// nonSpace counts the bytes of s that are not ASCII white space.
func nonSpace(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r', '\f', '\v':
		default:
			n++
		}
	}
	return n
}
