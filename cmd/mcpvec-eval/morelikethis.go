package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/internal/evalset"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
)

// "Find more like this": neither SciFact nor Cranfield holds a query over
// 1,000 characters, so the check takes their documents as queries, as a
// person pastes an article to find it or its like. Only documents of more
// than 1,000 characters (title, blank line, abstract, as their files hold
// them) are queries. Known item (SciFact, every mltStride-th such
// document): the query's answer is its own document. Related (Cranfield):
// for each topic judged relevant to the query document and at least one
// other, the answer is any other document judged relevant to it, the query
// document's own passages left out of the ranking. Each query is searched
// whole ("full"), with each sentence kept with probability 1/2 ("half"),
// and as a quarter of the sentences of the abstract without its title
// ("quarter"; at least one sentence stays). A query the library refuses
// counts as a miss.
const (
	mltMinChars = 1000
	mltStride   = 10
)

type mltQuery struct {
	id      string
	texts   [3]string       // full, half, quarter
	self    string          // a document left out of the ranking, or ""
	targets map[string]bool // the answers
}

var mltTexts = [3]string{"full", "half", "quarter"}

// mltVariant is one way of searching long queries.
type mltVariant struct {
	name string
	edit func(*library.Options)
}

var mltVariants = []mltVariant{
	{"before: refused over 1,000 characters", func(o *library.Options) { o.MaxQueryLen = 1000 }},
	{"32 terms, weighted by tf (default)", func(*library.Options) {}},
	{"32 terms, unweighted", func(o *library.Options) { o.LongQuery.Unweighted = true }},
	{"every term (no cut)", func(o *library.Options) { o.LongQuery.Terms = -1 }},
}

// mltVariantsOf returns mltVariants, or for a list of term counts one
// variant keeping each number of terms.
func mltVariantsOf(terms string) ([]mltVariant, error) {
	if terms == "" {
		return mltVariants, nil
	}
	var vs []mltVariant
	for _, f := range strings.Split(terms, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("-more-like-this-terms: %w", err)
		}
		vs = append(vs, mltVariant{fmt.Sprintf("%d terms, weighted by tf", n), func(o *library.Options) { o.LongQuery.Terms = n }})
	}
	return vs, nil
}

func moreLikeThis(ctx context.Context, c config) error {
	for _, task := range []struct{ coll, name string }{{"scifact", "known item"}, {"cranfield", "related"}} {
		if err := mltCollection(ctx, c, task.coll, task.name); err != nil {
			return fmt.Errorf("%s: %w", task.coll, err)
		}
	}
	return nil
}

func mltCollection(ctx context.Context, c config, coll, task string) error {
	cp, err := openCorpus(c, coll, "mcpvec-mlt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cp.dir)
	tl, err := openTestLibrary(ctx, c, cp.dir)
	if err != nil {
		return err
	}
	defer tl.db.Close()
	sum, err := tl.ingest(ctx, []string{cp.files}, chunkOpts(c, c.chunkTokens))
	if err != nil {
		return err
	}
	docOf, err := sourceIDs(tl.db)
	if err != nil {
		return err
	}
	qs, err := mltQueries(cp, task)
	if err != nil {
		return err
	}
	fmt.Printf("\n## Find more like this, %s: %d %s documents of over %d characters as queries (%d passages)\n\n", task, len(qs), coll, mltMinChars, sum.Chunks)
	fmt.Println("| mode | long queries | query | hit@1 | hit@10 | MRR@10 | refused | ms/query |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	variants, err := mltVariantsOf(c.mltTerms)
	if err != nil {
		return err
	}
	for _, v := range variants {
		opts := tl.opts
		v.edit(&opts)
		lib, err := embedded.Open(ctx, tl.db, tl.emb, opts)
		if err != nil {
			return err
		}
		for _, m := range strings.Split(c.modes, ",") {
			mode, err := library.ParseMode(m)
			if err != nil {
				return err
			}
			if err := mltRun(ctx, lib, mode, v.name, qs, docOf); err != nil {
				return err
			}
		}
	}
	return nil
}

// mltQueries picks the query documents of the task and cuts their
// variants.
func mltQueries(cp *corpus, task string) ([]mltQuery, error) {
	docs, _, err := evalset.Load(cp.base)
	if err != nil {
		return nil, err
	}
	var related map[string][]string // document: the topics judged relevant to it
	var qrels map[string][]string
	if task == "related" {
		if qrels, err = readQrels(filepath.Join(cp.base, "qrels.tsv")); err != nil {
			return nil, err
		}
		related = map[string][]string{}
		for topic, ds := range qrels {
			for _, d := range ds {
				related[d] = append(related[d], topic)
			}
		}
	}
	var qs []mltQuery
	r := rand.New(rand.NewPCG(38, 3))
	n := 0
	for _, d := range docs {
		full := d.Title + "\n\n" + d.Text
		if utf8.RuneCountInString(full) <= mltMinChars {
			continue
		}
		texts := [3]string{full, keepSentences(r, full, 2), keepSentences(r, d.Text, 4)}
		if related == nil {
			if n++; n%mltStride == 0 {
				qs = append(qs, mltQuery{id: d.ID, texts: texts, targets: map[string]bool{d.ID: true}})
			}
			continue
		}
		for _, topic := range related[d.ID] {
			q := mltQuery{id: d.ID + "/" + topic, texts: texts, self: d.ID, targets: map[string]bool{}}
			for _, o := range qrels[topic] {
				q.targets[o] = o != d.ID
			}
			if len(qrels[topic]) > 1 {
				qs = append(qs, q)
			}
		}
	}
	if len(qs) == 0 {
		return nil, errors.New("no document over the length")
	}
	return qs, nil
}

// keepSentences keeps each ". "-ended sentence of s with probability
// 1/of, and at least one.
func keepSentences(r *rand.Rand, s string, of int) string {
	sents := strings.SplitAfter(s, ". ")
	var kept []string
	for _, x := range sents {
		if r.IntN(of) == 0 {
			kept = append(kept, x)
		}
	}
	if len(kept) == 0 {
		kept = sents[:1]
	}
	return strings.Join(kept, "")
}

// mltRun searches every query of qs in mode and prints a row per variant
// of the query text.
func mltRun(ctx context.Context, lib *library.Library, mode library.Mode, name string, qs []mltQuery, docOf map[string]string) error {
	for t, which := range mltTexts {
		var hit1, hit10, rr float64
		refused := 0
		var took time.Duration
		for _, q := range qs {
			start := time.Now()
			resp, err := lib.Search(ctx, q.texts[t], library.SearchOptions{K: 30, Mode: mode})
			took += time.Since(start)
			if errors.Is(err, library.ErrQueryTooLong) {
				refused++
				continue
			}
			if err != nil {
				return fmt.Errorf("query %s: %w", q.id, err)
			}
			if rank := answerRank(resp.Results, q, docOf); rank > 0 && rank <= 10 {
				hit10++
				rr += 1 / float64(rank)
				if rank == 1 {
					hit1++
				}
			}
		}
		n := float64(len(qs))
		fmt.Printf("| %s | %s | %s | %.3f | %.3f | %.3f | %d | %.2f |\n", mode, name, which, hit1/n, hit10/n, rr/n, refused,
			took.Seconds()*1000/n)
	}
	return nil
}

// answerRank is the rank of q's first answer among results without the
// passages of q.self, or 0.
func answerRank(results []library.SearchResult, q mltQuery, docOf map[string]string) int {
	rank := 0
	for _, res := range results {
		d := docOf[res.DocID]
		if d == q.self {
			continue
		}
		rank++
		if q.targets[d] {
			return rank
		}
	}
	return 0
}
