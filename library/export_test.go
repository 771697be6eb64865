package library

import (
	"cmp"
	"context"
	"strings"
	"unsafe"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/store"
)

// SearchAllCandidates is Search as it was before it ranked fewer candidates
// first: every search ranks max(Candidates, 3k), the reference the shorter
// first ranking must agree with. It skips validation (queries must be
// valid) and debug output.
func SearchAllCandidates(ctx context.Context, l *Library, query string, so SearchOptions) (*SearchResponse, error) {
	k := min(cmp.Or(so.K, l.opts.K), l.opts.MaxK)
	query = strings.TrimSpace(query)
	tokens := analysis.Tokenize(query)
	hits, _, err := l.rank(ctx, Query{Text: query, Tokens: tokens, Mode: cmp.Or(so.Mode, l.opts.Mode), N: max(l.opts.Candidates, 3*k)})
	if err != nil {
		return nil, err
	}
	return l.results(ctx, termsOf(tokens), nil, hits, k)
}

// Ranked is the ranked candidates of a lexical search with the library's
// defaults, and Assemble the results Search makes of them: the two halves
// of Search, so a benchmark can time result assembly (passage reads,
// snippets, dedupe, titles) apart from ranking.
func Ranked(ctx context.Context, l *Library, query string) ([]Hit, error) {
	k := l.opts.K
	hits, _, err := l.rank(ctx, Query{Text: strings.TrimSpace(query), Mode: Lexical, N: l.fewCandidates(Lexical, k, max(l.opts.Candidates, 3*k))})
	return hits, err
}

// Assemble is the second half of Search (see Ranked).
func Assemble(l *Library, query string, hits []Hit) (*SearchResponse, error) {
	return l.results(context.Background(), queryTerms(strings.TrimSpace(query)), nil, hits, l.opts.K)
}

// SnippetFunc returns the snippet cutter of results for query's terms: the
// snippet of a passage's text with the library's default length.
func SnippetFunc(query string) func(text string) string {
	ts := queryTerms(strings.TrimSpace(query))
	return func(text string) string {
		s, _ := snippet(text, ts, Options{}.WithDefaults().SnippetChars)
		return s
	}
}

// noLending hides the backend's ViewChunks: its passages are
// copied, as a backend's that cannot lend them are.
type noLending struct{ Backend }

// poisoned lends the embedded backend's passages from a buffer of its own
// that it overwrites once fn returns, so that a string results keeps of a
// lent passage shows in its output.
type poisoned struct {
	Backend
	lender ChunkLender
}

func (p poisoned) ViewChunks(ctx context.Context, seqs []uint64, fn func(i int, c *store.Chunk) bool) error {
	return p.lender.ViewChunks(ctx, seqs, func(i int, c *store.Chunk) bool {
		if c == nil {
			return fn(i, nil)
		}
		buf := []byte(c.DocID + c.Text + strings.Join(c.Headings, ""))
		cut := func(n int) string {
			s := unsafe.String(unsafe.SliceData(buf), n)
			buf = buf[n:]
			return s
		}
		all, lent := buf, *c
		lent.DocID, lent.Text, lent.Headings = cut(len(c.DocID)), cut(len(c.Text)), nil
		for _, h := range c.Headings {
			lent.Headings = append(lent.Headings, cut(len(h)))
		}
		more := fn(i, &lent)
		for j := range all {
			all[j] = '#'
		}
		return more
	})
}

// Results is what Search makes of hits for query: the passages chosen and
// their snippets. With lend true the passages are lent (from a buffer
// overwritten once results is done with each: see poisoned), else copied,
// as a backend that cannot lend them gives them.
func Results(l *Library, query string, hits []Hit, k int, lend bool) (*SearchResponse, error) {
	cp := *l
	if cp.be = (noLending{l.be}); lend {
		cp.be = poisoned{l.be, l.caps.lend}
	}
	cp.caps = capabilitiesOf(cp.be)
	return cp.results(context.Background(), queryTerms(strings.TrimSpace(query)), nil, hits, k)
}
