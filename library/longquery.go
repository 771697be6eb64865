package library

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// DefaultMaxQueryLen is the longest query searched, in characters, unless
// Options.MaxQueryLen says otherwise: room for a pasted article to find
// more like it, while a runaway argument is still refused
// (QueryTooLongError).
const DefaultMaxQueryLen = 32000

// LongQueryOptions tunes how a long query, a pasted paragraph or article,
// is searched: by example, as Lucene's MoreLikeThis does. Of a query with
// more than Terms distinct index terms only the Terms most informative are
// ranked by BM25 and looked for in snippets: the frequency of a term in
// the query times its inverse document frequency in the library. Terms
// that no passage holds, and terms held by more than half the passages of
// a library of at least minShareLen, are dropped first. So a long query
// costs about what a query of Terms words does, whatever its length. Zero
// values mean the defaults.
type LongQueryOptions struct {
	// Terms is how many terms a long query keeps, and the number of
	// distinct terms above which a query is long (default 32); negative:
	// every query is searched by all its terms.
	Terms int
	// Unweighted ranks the kept terms as if each occurred once in the
	// query, as MoreLikeThis does by default; otherwise each weighs its
	// frequency in the query, as any BM25 query term does.
	Unweighted bool
	// EmbedTokens cuts the query text embedded for a vector or hybrid
	// search, and sent to a reranker, to at most this many tokens
	// (analysis.EstimateTokens; default 512, within the input of the
	// usual embedding models). Shorter queries are sent whole.
	EmbedTokens int
}

func (o LongQueryOptions) withDefaults() LongQueryOptions {
	if o.Terms == 0 {
		o.Terms = 32
	}
	if o.EmbedTokens <= 0 {
		o.EmbedTokens = 512
	}
	return o
}

// DocFreqer is a Backend that can say how many of its passages hold each
// of some index terms (analysis.Tokenize's), as its lexical index counts
// them: DocFreqs fills df[i] for terms[i] and returns the number of
// passages. A long query keeps its terms by these counts (LongQueryOptions);
// without them it keeps its most frequent terms. It must be safe for
// concurrent use and must not block on a write.
type DocFreqer interface {
	DocFreqs(ctx context.Context, terms []string, df []int) (n int)
}

// maxDocShare drops, from a long query, terms that more than this share of
// a library's passages hold (MoreLikeThis's maxDocFreqPct): they rank
// nothing apart, and their lists are the longest to score.
const maxDocShare = 0.5

// minShareLen is the smallest library whose common terms maxDocShare
// drops: in a handful of passages every topic word is common.
const minShareLen = 100

// splitQuery returns the tokens query is ranked by (exampleQuery), the
// text embedders, rerankers and a backend that splits the query itself
// are sent (embedText, when a search in mode sends one; else query), and
// whether the query is long.
func (l *Library) splitQuery(ctx context.Context, query string, mode Mode) (tokens []string, text string, long bool) {
	tokens, long = l.exampleQuery(ctx, analysis.Tokenize(sample(query)))
	if long || mode != Lexical || l.rr != nil {
		return tokens, l.embedText(query), long
	}
	return tokens, query, false
}

// exampleQuery returns the tokens a query split into tokens is ranked
// by. A query of at most Terms distinct terms keeps its tokens; a longer
// one keeps its most informative terms (LongQueryOptions), each repeated as
// often as it occurs in the query unless Unweighted. long reports the cut.
func (l *Library) exampleQuery(ctx context.Context, tokens []string) (kept []string, long bool) {
	o := l.opts.LongQuery
	if o.Terms < 0 || len(tokens) <= o.Terms {
		return tokens, false
	}
	tf := make(map[string]int, len(tokens)/2)
	var terms []string // distinct, in order of first occurrence
	for _, t := range tokens {
		if tf[t] == 0 {
			terms = append(terms, t)
		}
		tf[t]++
	}
	if len(terms) <= o.Terms {
		return tokens, false
	}
	best := l.informative(ctx, terms, tf, o.Terms)
	kept = make([]string, 0, len(best))
	for _, t := range best {
		for range repeats(o.Unweighted, tf[t]) {
			kept = append(kept, t)
		}
	}
	return kept, true
}

// embedText is query cut to what embedders and rerankers are sent: at
// most LongQueryOptions.EmbedTokens tokens of its head, read from no more
// than 4 bytes a token (English runs about 4.5), so that the cut costs
// little whatever the query's length; a text of denser tokens is cut to
// the budget, one of sparser ones a little short of it.
func (l *Library) embedText(query string) string {
	limit := l.opts.LongQuery.EmbedTokens
	return analysis.TruncateTokens(headBytes(query, 4*limit), limit, nil)
}

// repeats is how many times a kept term of frequency tf is ranked.
func repeats(unweighted bool, tf int) int {
	if unweighted {
		return 1
	}
	return tf
}

// informative returns the keep terms with the highest tf × idf in the
// library, best first (ties: first occurrence), leaving out terms no
// passage holds and, in a library of at least minShareLen passages, terms
// more than maxDocShare of them hold. Without a DocFreqer every idf is 1.
func (l *Library) informative(ctx context.Context, terms []string, tf map[string]int, keep int) []string {
	df := make([]int, len(terms))
	n := 0
	if l.caps.dfs != nil {
		n = l.caps.dfs.DocFreqs(ctx, terms, df)
	}
	best := make([]scoredTerm, 0, keep+1) // sorted, best first
	for i, t := range terms {
		idf := 1.0
		if n > 0 {
			d := float64(df[i])
			if df[i] == 0 || n >= minShareLen && d > maxDocShare*float64(n) {
				continue
			}
			idf = math.Log(1 + (float64(n)-d+0.5)/(d+0.5)) // BM25's idf
		}
		st := scoredTerm{t, float64(tf[t]) * idf}
		if len(best) == keep && best[keep-1].score >= st.score {
			continue // ties keep the earlier term
		}
		j := sort.Search(len(best), func(j int) bool { return best[j].score < st.score })
		best = slices.Insert(best, j, st)[:min(len(best)+1, keep)]
	}
	out := make([]string, len(best))
	for i, c := range best {
		out[i] = c.term
	}
	return out
}

type scoredTerm struct {
	term  string
	score float64
}

// headBytes returns s cut to at most n bytes on a rune boundary.
func headBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// sampleBytes bounds how much of a long query is split into terms: a
// longer one is read in sampleWindows windows spread evenly over it, so
// every part of it counts while the split (analysis.Tokenize, about
// 15 MB/s) costs no more than a query of sampleBytes (MoreLikeThis reads
// an example's first 5,000 tokens instead).
const (
	sampleBytes   = 4000
	sampleWindows = 8
)

// sample returns query when it is at most sampleBytes long, else
// sampleWindows pieces of it spread evenly over it, each cut at spaces,
// joined by newlines.
func sample(query string) string {
	if len(query) <= sampleBytes {
		return query
	}
	var b strings.Builder
	b.Grow(sampleBytes + sampleWindows)
	w, stride := sampleBytes/sampleWindows, len(query)/sampleWindows
	for i := range sampleWindows {
		start := i * stride
		piece := query[start:min(start+w, len(query))]
		if i > 0 { // drop the word cut at the window's start
			if j := strings.IndexAny(piece, " \n\t"); j >= 0 {
				piece = piece[j+1:]
			}
		}
		if j := strings.LastIndexAny(piece, " \n\t"); j >= 0 && start+w < len(query) {
			piece = piece[:j] // and the one cut at its end
		}
		b.WriteString(piece)
		b.WriteByte('\n')
	}
	return b.String()
}
