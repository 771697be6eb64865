package main

import (
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/extract"
)

// candidate is a known-item query source: a section's heading or the first
// sentence of its text, and the passage holding it.
type candidate struct {
	kind    string // "heading" or "sentence"
	source  string // the text as the document has it
	passage int    // index of the passage whose new text holds source's start
	offset  int
}

// Word counts a query source must have: a heading of two words is mostly a
// generic title ("See also"), a long sentence is no query.
const (
	minHeadingWords  = 3
	maxHeadingWords  = 20
	minSentenceWords = 6
	maxSentenceWords = 40
)

// candidates lists the headings and first sentences of sections in text
// (split into cs) that are fit to be queries.
func candidates(text string, heads []extract.Heading, cs []chunk.Chunk) []candidate {
	var out []candidate
	for i, h := range heads {
		if n := letterWords(h.Title); n >= minHeadingWords && n <= maxHeadingWords && strings.HasPrefix(text[h.Offset:], h.Title) {
			out = append(out, candidate{kind: "heading", source: h.Title, offset: h.Offset})
		}
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1].Offset
		}
		start := min(h.Offset+len(h.Title), end)
		if s, off := firstSentence(text[start:end]); s != "" {
			out = append(out, candidate{kind: "sentence", source: s, offset: start + off})
		}
	}
	for i := range out {
		out[i].passage = passageAt(cs, out[i].offset)
	}
	return slices.DeleteFunc(out, func(c candidate) bool { return c.passage < 0 })
}

// letterWords counts the words of s that hold a letter: a section number
// ("24.2.1.") is no word of a heading.
func letterWords(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if strings.IndexFunc(w, unicode.IsLetter) >= 0 {
			n++
		}
	}
	return n
}

// firstSentence returns the first sentence of section (up to ". ", "? ",
// "! " or the paragraph's end) and its offset, or "" when it has too few
// or too many words or starts like no sentence (code, a list).
func firstSentence(section string) (string, int) {
	off := len(section) - len(strings.TrimLeft(section, " \n"))
	rest := section[off:]
	if p := strings.Index(rest, "\n\n"); p >= 0 {
		rest = rest[:p]
	}
	for i := 0; i+1 < len(rest); i++ {
		if (rest[i] == '.' || rest[i] == '?' || rest[i] == '!') && (rest[i+1] == ' ' || rest[i+1] == '\n') {
			rest = rest[:i+1]
			break
		}
	}
	r, _ := utf8.DecodeRuneInString(rest)
	n := len(strings.Fields(rest))
	if !unicode.IsUpper(r) || n < minSentenceWords || n > maxSentenceWords {
		return "", 0
	}
	return strings.Join(strings.Fields(rest), " "), off
}

// passageAt is the first passage whose text holds byte off, or -1.
func passageAt(cs []chunk.Chunk, off int) int {
	for i, c := range cs {
		if c.Start <= off && off < c.End {
			return i
		}
	}
	return -1
}

// dropWords makes a query of source: each word is dropped with
// probability 0.3 (at least one, for a sentence or a heading of three
// words or more), keeping at least two words (four for a sentence).
func dropWords(r *rand.Rand, kind, source string) string {
	words := strings.Fields(source)
	keepMin := 2
	if kind == "sentence" {
		keepMin = 4
	}
	keep := make([]bool, len(words))
	kept := 0
	for i := range words {
		keep[i] = r.Float64() >= 0.3
		if keep[i] {
			kept++
		}
	}
	for kept < keepMin || kept == len(words) {
		i := r.IntN(len(words))
		if kept == len(words) {
			keep[i], kept = false, kept-1
		} else if !keep[i] {
			keep[i], kept = true, kept+1
		}
	}
	var q []string
	for i, w := range words {
		if keep[i] {
			q = append(q, w)
		}
	}
	return strings.Join(q, " ")
}

// pick is a candidate kept by the bottom-k sample: the queries are the
// candidates with the smallest hashes, whatever the number of documents.
type pick struct {
	hash uint64
	doc  string
	c    candidate
}

// sampler keeps the n picks of smallest hash (a max-heap on hash).
type sampler struct {
	n     int
	picks []pick
}

func (s *sampler) Len() int           { return len(s.picks) }
func (s *sampler) Less(i, j int) bool { return s.picks[i].hash > s.picks[j].hash }
func (s *sampler) Swap(i, j int)      { s.picks[i], s.picks[j] = s.picks[j], s.picks[i] }
func (s *sampler) Push(x any)         { s.picks = append(s.picks, x.(pick)) }
func (s *sampler) Pop() any {
	p := s.picks[len(s.picks)-1]
	s.picks = s.picks[:len(s.picks)-1]
	return p
}

// offer considers the candidates of d.
func (s *sampler) offer(seed uint64, d doc) {
	for _, c := range d.candidates {
		h := docHash(seed, fmt.Sprintf("%s\x00%d\x00%s", d.rel, c.offset, c.kind))
		if len(s.picks) < s.n {
			heap.Push(s, pick{h, d.rel, c})
		} else if s.n > 0 && h < s.picks[0].hash {
			s.picks[0] = pick{h, d.rel, c}
			heap.Fix(s, 0)
		}
	}
}

// write writes queries.tsv, "id<TAB>doc<TAB>passage<TAB>kind<TAB>query
// <TAB>source", sorted by document and offset; the words dropped depend
// on seed and the candidate alone.
func (s *sampler) write(w io.Writer, seed uint64) error {
	ps := slices.Clone(s.picks)
	slices.SortFunc(ps, func(a, b pick) int {
		if c := strings.Compare(a.doc, b.doc); c != 0 {
			return c
		}
		return a.c.offset - b.c.offset
	})
	for i, p := range ps {
		r := rand.New(rand.NewPCG(seed, p.hash))
		q := dropWords(r, p.c.kind, p.c.source)
		if _, err := fmt.Fprintf(w, "q%06d\t%s\t%d\t%s\t%s\t%s\n", i+1, p.doc, p.c.passage, p.c.kind, oneLine(q), oneLine(p.c.source)); err != nil {
			return err
		}
	}
	return nil
}
