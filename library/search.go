package library

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/store"
)

// SearchOptions overrides the library's defaults for one search.
type SearchOptions struct {
	K    int  // 0: Options.K
	Mode Mode // "": Options.Mode
	// MaxQueryLen caps the query in characters (0: Options.MaxQueryLen).
	MaxQueryLen int
	// Debug fills SearchResult.Retriever with the retrievers whose
	// candidates held each passage; results are otherwise unchanged.
	Debug bool
}

// QueryTooLongError says how long a refused query was; it matches
// ErrQueryTooLong.
type QueryTooLongError struct{ Len, Max int }

func (e *QueryTooLongError) Error() string {
	return fmt.Sprintf("%v: %d characters, the limit is %d", ErrQueryTooLong, e.Len, e.Max)
}

// Is makes errors.Is(err, ErrQueryTooLong) true.
func (e *QueryTooLongError) Is(target error) bool { return target == ErrQueryTooLong }

// Search runs query through the configured retrievers, fuses them, drops
// near-duplicate passages and returns up to K results with snippets. It
// returns ErrEmptyQuery or a *QueryTooLongError for queries a caller should
// fix. It is the one place a query is validated, and where its operators
// (library/query: in:, path:, type:, after:, before:, phrases, exclusions)
// are parsed: document operators become the Query.Filter the backend ranks
// within, phrases and exclusions test each passage, operators that match
// nothing are SearchResponse.Notes, and operators alone list the passages
// they keep (Library.listing).
func (l *Library) Search(ctx context.Context, query string, so SearchOptions) (*SearchResponse, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, ErrEmptyQuery
	}
	limit := cmp.Or(so.MaxQueryLen, l.opts.MaxQueryLen)
	if n := utf8.RuneCountInString(query); n > limit {
		return nil, &QueryTooLongError{Len: n, Max: limit}
	}
	p, err := l.plan(ctx, query)
	if err != nil {
		return nil, err
	}
	k := so.K
	if k <= 0 {
		k = l.opts.K
	}
	k = min(k, l.opts.MaxK)
	mode := so.Mode
	if mode == "" {
		mode = l.opts.Mode
	}
	return l.search(ctx, p, k, mode, so.Debug)
}

// search answers a planned query (its operators parsed: Library.plan).
func (l *Library) search(ctx context.Context, p *plan, k int, mode Mode, debug bool) (*SearchResponse, error) {
	if p.filter != nil && p.filter.Len() == 0 {
		return &SearchResponse{Results: []SearchResult{}, Notes: p.notes}, nil
	}
	n := max(l.opts.Candidates, 3*k)
	if p.passage != nil {
		n *= passageSpread // phrases and exclusions turn candidates down
	}
	// Split once: BM25 ranks by the tokens, snippets look for their stems;
	// a long query keeps its informative terms and embeds its head.
	tokens, text, long := l.splitQuery(ctx, p.q.Text, mode)
	terms := searchTerms(p.q.Text, tokens, long)
	defer terms.release()
	var (
		resp   *SearchResponse
		c      Candidates
		scored map[uint64]rerankedHit
	)
	if len(tokens) == 0 && p.q.Filtered() {
		return l.listed(ctx, p, terms, k)
	}
	for few, again := l.fewCandidates(mode, k, n), false; ; few, again = moreCandidates(k, few, n), true {
		hits, cs, err := l.rank(ctx, Query{Text: text, Tokens: tokens, Mode: mode, N: few, Again: again, Filter: p.filter})
		if err != nil {
			return nil, err
		}
		c = cs
		if l.rr != nil {
			if hits, scored, err = l.rerankHits(ctx, text, hits); err != nil {
				return nil, err
			}
		}
		if resp, err = l.results(ctx, terms, p.passage, hits, k); err != nil {
			return nil, err
		}
		if few == n || len(resp.Results) == k || len(hits) < few {
			break // full, or the list ran out before the short one did
		}
		// Overlapping or repeated passages used the short list up.
	}
	if long {
		resp.Terms = slices.Clone(terms.stems)
	}
	markReranked(resp.Results, scored)
	if debug {
		found := retrievers(c)
		for i := range resp.Results {
			resp.Results[i].Retriever = found[resp.Results[i].seq]
		}
	}
	resp.Notes = p.notes
	if len(resp.Results) == 0 && p.passage != nil {
		resp.Notes = append(resp.Notes, passageNote(&p.q))
	}
	return resp, nil
}

// passageSpread multiplies the candidates of a search whose passages must
// hold a phrase or lack a word, which are tested only once ranked.
const passageSpread = 4

// listed answers a query of operators alone (Library.listing).
func (l *Library) listed(ctx context.Context, p *plan, terms *termSet, k int) (*SearchResponse, error) {
	hits, err := l.listing(ctx, p)
	if err != nil {
		return nil, err
	}
	resp, err := l.results(ctx, terms, p.passage, hits, k)
	if err != nil {
		return nil, err
	}
	resp.Notes = p.notes
	if len(resp.Results) == 0 && p.passage != nil {
		resp.Notes = append(resp.Notes, passageNote(&p.q))
	}
	return resp, nil
}

// fewCandidates is how many candidates to rank first out of n: all of
// them when a rerank stage reorders them. Fusion
// needs every list's n best, but a lexical search of the embedded backend
// takes its results straight from BM25's list, whose order is total (ties
// go to the smaller id): its m best are the first m of its n best, and
// results, which walks the list in order, picks the same k from either as
// long as the short one does not run out (Search then ranks more, see
// moreCandidates). BM25 prunes more the fewer it ranks
// (lexical.Index.Search): at a million passages a search costs 3-10% less
// (docs/benchmarks/lexical.md#shorter-first-list), and of SciFact's 300 claims at k 10
// two ran out of k+2 there and none at 100k.
func (l *Library) fewCandidates(mode Mode, k, n int) int {
	if l.caps.prefix && mode == Lexical && l.rr == nil {
		return min(n, k+shortExtra)
	}
	return n
}

// shortExtra is how many candidates beyond k a lexical search ranks first.
const shortExtra = 2

// moreCandidates is how many to rank after few ran out: 2k, then n.
func moreCandidates(k, few, n int) int {
	if few < 2*k {
		return min(n, 2*k)
	}
	return n
}

// retrievers names, for each candidate passage, the lists that held it.
func retrievers(c Candidates) map[uint64]string {
	found := map[uint64]string{}
	for _, h := range c.Fused {
		found[h.Seq] = "fused"
	}
	for _, h := range c.Lexical {
		found[h.Seq] = "lexical"
	}
	for _, h := range c.Vector {
		if found[h.Seq] == "lexical" {
			found[h.Seq] = "both"
		} else {
			found[h.Seq] = "vector"
		}
	}
	return found
}

// rank returns fused candidates, best first, and the backend's lists they
// came from. q.Tokens are analysis.Tokenize(q.Text) or nil; rank embeds
// q.Text for the vector and hybrid modes.
func (l *Library) rank(ctx context.Context, q Query) ([]Hit, Candidates, error) {
	defer stagesOf(ctx).timed(StageFirst)()
	query, mode := q.Text, q.Mode
	vectors := false
	if (mode == Vector || mode == Hybrid) && l.emb != nil {
		// Counts may wait for a deferred index load: a search given up
		// meanwhile ends with its context's error.
		if vectors = l.be.Counts(ctx).VectorPassages > 0; ctx.Err() != nil {
			return nil, Candidates{}, ctx.Err()
		}
	}
	if vectors {
		v, err := l.emb.EmbedQuery(ctx, query)
		if err != nil {
			return nil, Candidates{}, fmt.Errorf("embed query: %w", err)
		}
		q.Vector = v
	} else if mode == Vector {
		return nil, Candidates{}, errors.New("vector search is unavailable: the library has no vector index or embedder")
	}
	c, err := l.be.Candidates(ctx, q)
	if err != nil {
		return nil, c, err
	}
	if c.Fused != nil {
		return c.Fused, c, nil
	}
	var lists [][]Hit
	var weights []float64
	if mode == Lexical || mode == Hybrid {
		lists, weights = append(lists, c.Lexical), append(weights, 1)
	}
	if c.Vector != nil {
		lists, weights = append(lists, c.Vector), append(weights, l.opts.VectorWeight)
	}
	if len(lists) == 1 {
		return lists[0], c, nil
	}
	if l.opts.Fusion == FusionScores {
		return fuseScores(lists, weights), c, nil
	}
	return fuseRRF(lists, weights, l.opts.RRFK), c, nil
}

// fuseScores combines lists by a weighted sum of min-max normalised scores;
// a passage missing from a list scores 0 there.
func fuseScores(lists [][]Hit, weights []float64) []Hit {
	score := map[uint64]float64{}
	for li, list := range lists {
		if len(list) == 0 {
			continue
		}
		lo, hi := list[0].Score, list[0].Score
		for _, h := range list {
			lo, hi = min(lo, h.Score), max(hi, h.Score)
		}
		for _, h := range list {
			norm := 1.0
			if hi > lo {
				norm = (h.Score - lo) / (hi - lo)
			}
			score[h.Seq] += weights[li] * norm
		}
	}
	return sortHits(score)
}

func sortHits(score map[uint64]float64) []Hit {
	out := make([]Hit, 0, len(score))
	for s, v := range score {
		out = append(out, Hit{s, v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Seq < out[j].Seq
	})
	return out
}

// fuseRRF combines ranked lists by weighted reciprocal rank fusion.
func fuseRRF(lists [][]Hit, weights []float64, k float64) []Hit {
	score := map[uint64]float64{}
	for li, list := range lists {
		for rank, h := range list {
			score[h.Seq] += weights[li] / (k + float64(rank+1))
		}
	}
	return sortHits(score)
}

func isPaged(d *store.Document) bool { return d.MediaType == "application/pdf" }

// passageTitle names the document, the passage's section and, for paged
// documents, the page(s): "manual.pdf — 4.2 Memcheck options — p. 42".
// It makes the one string it returns and nothing else.
func passageTitle(d *store.Document, heads []string, first, last int) string {
	const dash = " — "
	heads = section(d.Title, heads)
	var num [2][20]byte
	page := ""
	switch {
	case !isPaged(d) || first <= 0:
	case last > first:
		page = "pp. "
	default:
		page = "p. "
	}
	from := strconv.AppendInt(num[0][:0], int64(first), 10)
	to := strconv.AppendInt(num[1][:0], int64(last), 10)
	n := len(d.Title)
	if len(heads) == 1 && heads[0] == "" {
		heads = nil // an empty path is not shown
	}
	for _, h := range heads {
		n += len(h) + len(store.HeadingSeparator)
	}
	if len(heads) > 0 {
		n += len(dash) - len(store.HeadingSeparator)
	}
	if page != "" {
		n += len(dash) + len(page) + len(from) + len("–") + len(to)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(d.Title)
	for i, h := range heads {
		if i == 0 {
			b.WriteString(dash)
		} else {
			b.WriteString(store.HeadingSeparator)
		}
		b.WriteString(h)
	}
	if page != "" {
		b.WriteString(dash)
		b.WriteString(page)
		b.Write(from)
		if last > first {
			b.WriteString("–")
			b.Write(to)
		}
	}
	return b.String()
}

// maxSectionRunes bounds the heading path shown in a title; outer headings
// are dropped first.
const maxSectionRunes = 80

// section is the heading path shown in a passage's title, joined with
// store.HeadingSeparator: heads without a first heading that repeats the
// document title, and without outer headings while their path is longer
// than maxSectionRunes (the innermost always stays). The path's length
// is the sum of its pieces': the separator, which starts and ends with a
// space, joins no two bytes into one character.
func section(title string, heads []string) []string {
	if len(heads) > 0 && strings.EqualFold(heads[0], title) {
		heads = heads[1:]
	}
	sep := utf8.RuneCountInString(store.HeadingSeparator)
	n := 0
	for i, h := range heads {
		n += utf8.RuneCountInString(h) + sep*min(1, i)
	}
	for len(heads) > 1 && n > maxSectionRunes {
		n -= utf8.RuneCountInString(heads[0]) + sep
		heads = heads[1:]
	}
	return heads
}

// sourceURL is the document's own web address with a #page fragment for
// paged documents, or "" when it has none.
// FileURL is the file:// URL of a document's source file at path, opening
// at page when page > 0 (which only PDFs have, as "#page=N" that PDF
// viewers follow): the link for a reader on the machine that holds the
// file, when the document has no source URL. It is "" for a path that is
// not absolute.
func FileURL(path string, page int) string {
	if !filepath.IsAbs(path) {
		return ""
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x.pdf
	}
	u := url.URL{Scheme: "file", Path: p}
	if page > 0 {
		u.Fragment = "page=" + strconv.Itoa(page)
	}
	return u.String()
}

func sourceURL(d *store.Document, page int) string {
	if d.SourceURL == "" {
		return ""
	}
	if page > 0 && !strings.Contains(d.SourceURL, "#") {
		return fmt.Sprintf("%s#page=%d", d.SourceURL, page)
	}
	return d.SourceURL
}
