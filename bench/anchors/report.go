package main

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// quality is a row's agreement with mcpvec and, for known-item queries,
// how often and how high it ranks the passage a query was drawn from.
type quality struct {
	overlap              float64 // mean |top10 ∩ mcpvec's top10|
	success, mrr, docHit float64
	known                int
}

func score(r result, ps []passage, qs []query, ref *result) quality {
	var q quality
	for i, top := range r.top {
		if ref != nil && i < len(ref.top) {
			n := 0
			for _, id := range top {
				if slices.Contains(ref.top[i], id) {
					n++
				}
			}
			q.overlap += float64(n)
		}
		if qs[i].doc == "" {
			continue
		}
		q.known++
		doc := false
		for rank, id := range top {
			if ps[id].doc == qs[i].doc && ps[id].index == qs[i].passage {
				q.success++
				q.mrr += 1 / float64(rank+1)
			}
			doc = doc || ps[id].doc == qs[i].doc
		}
		if doc {
			q.docHit++
		}
	}
	n := float64(max(1, len(r.top)))
	q.overlap /= n
	if k := float64(max(1, q.known)); q.known > 0 {
		q.success, q.mrr, q.docHit = q.success/k, q.mrr/k, q.docHit/k
	}
	return q
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

func report(out io.Writer, c config, ps []passage, qs []query, rows []result, sizes *sizeReport) {
	fmt.Fprintf(out, "\n### %s: %d passages, %d queries, %d rounds (median per query), one thread\n\n", c.label, len(ps), len(qs), c.rounds)
	fmt.Fprintln(out, "| engine | build wall / CPU | index on disk | per-query CPU p50 | p99 | p50 × mcpvec's | top-10 overlap with mcpvec | success@10 | MRR@10 | right document in top 10 |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
	var ref *result
	if len(rows) > 0 && rows[0].engine == "mcpvec BM25 (index/lexical)" {
		ref = &rows[0]
	}
	for _, r := range rows {
		q := score(r, ps, qs, ref)
		ratio := "—"
		if ref != nil {
			ratio = fmt.Sprintf("%.1f×", float64(percentile(r.cpu, 50))/float64(max(1, percentile(ref.cpu, 50))))
		}
		known := "—"
		mrr, doc := "—", "—"
		if q.known > 0 {
			known, mrr, doc = fmt.Sprintf("%.3f", q.success), fmt.Sprintf("%.3f", q.mrr), fmt.Sprintf("%.3f", q.docHit)
		}
		fmt.Fprintf(out, "| %s | %.1f s / %.1f s | %.1f MB | %s | %s | %s | %.2f | %s | %s | %s |\n", r.engine,
			r.buildWall.Seconds(), r.build.Seconds(), float64(r.size)/1e6, ms(percentile(r.cpu, 50)), ms(percentile(r.cpu, 99)), ratio, q.overlap, known, mrr, doc)
	}
	if sizes != nil {
		fmt.Fprintf(out, "\nmcpvec's index bytes (%d passages, %d terms):\n\n| what | bytes |\n|---|---|\n", sizes.passages, sizes.terms)
		for _, r := range sizes.rows() {
			fmt.Fprintf(out, "| %s | %s |\n", r[0], r[1])
		}
	}
}
