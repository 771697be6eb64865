package library

import (
	"context"
	"errors"
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/mcpvec/mcpvec/library/query"
	"github.com/mcpvec/mcpvec/store"
)

// A search's passages are read where they lie when the backend can lend
// them (ChunkLender: the embedded backend's bbolt file): their snippets
// are cut in the read transaction and only the snippets are copied out.
// Copying each passage's whole text was most of the bytes the library
// allocated for a search. Another backend's passages are copied as
// before and go the same way.

// results loads passages for hits in order, skipping passages that overlap
// an already chosen passage of the same document (chunk overlap) or repeat
// its text, until k are chosen; terms are the query's, for the snippets.
// A passage whose document is gone by the time it is looked up (deleted
// meanwhile) is left out, its place going to the hits after it, but still
// hides the passages that repeat its text. Texts are told apart by their
// length and a 64-bit hash (two different texts pass for one with a
// chance of 2^-64), so that nothing kept points into a lent passage.
//
// keep, when not nil, is the test of the query's phrases and exclusions:
// a passage that fails it is skipped.
func (l *Library) results(ctx context.Context, terms *termSet, keep *query.Passage, hits []Hit, k int) (*SearchResponse, error) {
	defer stagesOf(ctx).timed(StageSnippets)()
	most := min(k, len(hits))
	resp := &SearchResponse{Results: make([]SearchResult, 0, most)}
	docs := make(docsRead, 0, most)
	sel := selection{terms: terms, keep: keep, maxChars: l.opts.SnippetChars, lent: l.caps.lend != nil,
		chosen: make([]picked, 0, most), seen: make([]textKey, 0, most)}
	for from := 0; from < len(hits) && len(resp.Results) < k; {
		first := len(sel.chosen)
		read, err := l.pick(ctx, &sel, hits[from:], k-len(resp.Results))
		if err != nil {
			return nil, err
		}
		from += read
		for i := range sel.chosen[first:] {
			p := &sel.chosen[first+i]
			d := docs.get(p.c.DocID)
			if d == nil {
				if d, err = l.be.Document(ctx, p.c.DocID, false); errors.Is(err, store.ErrCorrupt) {
					return nil, err
				} else if err != nil {
					continue
				}
				docs = append(docs, docRead{p.c.DocID, d})
			}
			resp.Results = append(resp.Results, l.result(d, p))
		}
	}
	return resp, nil
}

// selection is the passages results has chosen so far. It is not safe
// for concurrent use.
type selection struct {
	terms    *termSet
	keep     *query.Passage // nil: every passage
	maxChars int            // of a snippet
	lent     bool
	sb       snippetBuf
	chosen   []picked
	seen     []textKey // the chosen passages' texts
}

// docsRead is the document records a search's results have read, by the
// id they were read by; there are at most as many as results, few enough
// to look through.
type docsRead []docRead

type docRead struct {
	id string
	d  *store.Document
}

// get returns the record read for the document id, or nil.
func (ds docsRead) get(id string) *store.Document {
	for _, r := range ds {
		if r.id == id {
			return r.d
		}
	}
	return nil
}

// textKey stands for a text: its length and its hash.
type textKey struct {
	n int
	h uint64
}

// textSeed is the process's seed of textKeys.
var textSeed = maphash.MakeSeed()

func keyOf(text string) textKey { return textKey{len(text), maphash.String(textSeed, text)} }

// picked is a chosen passage and its snippet. Its strings are its own,
// copied out of a lent passage; c.Text is "".
type picked struct {
	c       store.Chunk
	snippet string
	off     int // where in c's text the best-matching sentence starts
	score   float64
}

// pick reads the passages of hits in order and chooses, up to need of
// them, those that neither overlap a chosen passage nor repeat one's
// text, with their snippets; it returns how many hits it read.
func (l *Library) pick(ctx context.Context, sel *selection, hits []Hit, need int) (int, error) {
	seqs := make([]uint64, len(hits))
	for i, h := range hits {
		seqs[i] = h.Seq
	}
	read, n := 0, len(sel.chosen)+need
	err := l.eachChunk(ctx, seqs, need, func(i int, c *store.Chunk) bool {
		read = i + 1
		if c == nil || sel.overlaps(c) {
			return true
		}
		if key := keyOf(c.Text); !slices.Contains(sel.seen, key) && (sel.keep == nil || sel.keep.Match(c.IndexText())) {
			sel.choose(c, key, hits[i].Score)
		}
		return len(sel.chosen) < n
	})
	return read, err
}

// eachChunk calls fn with the passages seqs in order until it returns
// false, nil for one that cannot be read; lent by the backend when it can
// lend them, else read batch at a time. It returns an error matching
// store.ErrCorrupt when the store is damaged.
func (l *Library) eachChunk(ctx context.Context, seqs []uint64, batch int, fn func(i int, c *store.Chunk) bool) error {
	if l.caps.lend != nil {
		return l.caps.lend.ViewChunks(ctx, seqs, fn)
	}
	for start := 0; start < len(seqs); start += batch {
		part := seqs[start:min(len(seqs), start+batch)]
		chunks, err := l.be.Chunks(ctx, part)
		if errors.Is(err, store.ErrCorrupt) {
			return err
		}
		if err != nil {
			// A passage deleted between ranking and loading: fall back to one
			// at a time so the rest still come back.
			chunks = l.chunksLenient(ctx, part)
		}
		for i, c := range chunks {
			if !fn(start+i, c) {
				return nil
			}
		}
	}
	return nil
}

func (l *Library) chunksLenient(ctx context.Context, seqs []uint64) []*store.Chunk {
	out := make([]*store.Chunk, len(seqs))
	for i, s := range seqs {
		if cs, err := l.be.Chunks(ctx, []uint64{s}); err == nil {
			out[i] = cs[0]
		}
	}
	return out
}

// choose adds c, of score and text key (keyOf(c.Text)), to the chosen
// passages with its snippet.
func (sel *selection) choose(c *store.Chunk, key textKey, score float64) {
	sel.seen = append(sel.seen, key)
	terms := sel.terms
	if terms.query != "" { // else the passage's language changes nothing
		terms = terms.forLang(passageLangs.of(key, c.Text))
	}
	text, off := sel.sb.cut(c.Text, terms, sel.maxChars)
	p := picked{c: *c, snippet: text, off: off, score: score}
	p.c.Text = ""
	if sel.lent {
		p.own(c.Text)
	}
	sel.chosen = append(sel.chosen, p)
}

// own copies the strings of p that lie in a lent passage of text text
// (its document id, its headings, and its snippet unless that was cut
// with "…" into a string of its own) into one allocation.
func (p *picked) own(text string) {
	c := &p.c
	snip := lies(p.snippet, text)
	if p.snippet == "" {
		p.snippet = "" // not even a pointer into text
	}
	n := len(c.DocID)
	for _, h := range c.Headings {
		n += len(h)
	}
	if snip {
		n += len(p.snippet)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(c.DocID)
	for _, h := range c.Headings {
		b.WriteString(h)
	}
	if snip {
		b.WriteString(p.snippet)
	}
	all := b.String()
	c.DocID, all = all[:len(c.DocID)], all[len(c.DocID):]
	if len(c.Headings) == 0 {
		c.Headings = nil
	} else {
		heads := make([]string, len(c.Headings))
		for i, h := range c.Headings {
			heads[i], all = all[:len(h)], all[len(h):]
		}
		c.Headings = heads
	}
	if snip {
		p.snippet = all
	}
}

// overlaps reports whether c shares more than half of the shorter
// passage's bytes with a chosen passage of the same document.
func (sel *selection) overlaps(c *store.Chunk) bool {
	for i := range sel.chosen {
		o := &sel.chosen[i].c
		if o.DocID != c.DocID {
			continue
		}
		ov := min(o.End, c.End) - max(o.Start, c.Start)
		if ov > 0 && 2*ov > min(o.End-o.Start, c.End-c.Start) {
			return true
		}
	}
	return false
}

// lies reports whether s is a non-empty piece of text's memory (a piece
// of a lent passage; a snippet cut with "…" is a string of its own).
func lies(s, text string) bool {
	if s == "" {
		return false
	}
	p, t := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
	return p >= t && p < t+uintptr(len(text))
}

// result builds a search result. For paged documents it cites the page
// holding the passage's best-matching sentence, which is where a reader
// should land, not merely where the passage starts.
func (l *Library) result(d *store.Document, p *picked) SearchResult {
	c := &p.c
	page, anchor := 0, ""
	if isPaged(d) {
		page = min(max(d.PageOf(c.Start+p.off), c.PageStart), c.PageEnd)
	} else {
		anchor = viewAnchor(d, c, c.Start+p.off)
	}
	return SearchResult{
		ID:     c.ID(),
		Title:  passageTitle(d, c.Headings, page, page),
		URL:    sourceURL(d, page),
		Text:   p.snippet,
		DocID:  d.ID,
		Page:   page,
		Source: d.SourcePath,
		Score:  p.score,
		seq:    c.Seq,

		Anchor: anchor,
	}
}
