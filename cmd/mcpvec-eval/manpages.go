package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/library"
)

// manpagesEval runs the multilingual known-item evaluation on the folder
// scripts/manpages-eval.sh wrote: for each language, every page is
// ingested into a new library and each page's NAME description is
// searched; the page is the one right answer. It prints hit@1, hit@10 and
// MRR (reciprocal rank of the page among the first 100 documents, 0 when
// absent) per language and mode.
func manpagesEval(ctx context.Context, c config) error {
	langs, err := os.ReadDir(c.manpages)
	if err != nil {
		return err
	}
	fmt.Println("| language | pages | mode | hit@1 | hit@10 | MRR | ms/query |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, e := range langs {
		if !e.IsDir() || (c.manpageLangs != "" && !strings.Contains(","+c.manpageLangs+",", ","+e.Name()+",")) {
			continue
		}
		if err := manpagesLang(ctx, c, filepath.Join(c.manpages, e.Name())); err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
	}
	return nil
}

// manpagesLang scores one language's folder.
func manpagesLang(ctx context.Context, c config, dir string) error {
	queries, err := readKnownItems(filepath.Join(dir, "queries.tsv"))
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mcpvec-manpages-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	tl, err := openTestLibrary(ctx, c, tmp)
	if err != nil {
		return err
	}
	defer tl.db.Close()
	if _, err := tl.ingest(ctx, []string{filepath.Join(dir, "pages")}, chunkOpts(c, c.chunkTokens)); err != nil {
		return err
	}
	docOf, err := sourceIDs(tl.db)
	if err != nil {
		return err
	}
	for _, m := range strings.Split(c.modes, ",") {
		mode, err := library.ParseMode(m)
		if err != nil {
			return err
		}
		s, err := knownItemScores(ctx, tl.lib, queries, mode, docOf)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %d | %s | %.3f | %.3f | %.3f | %.2f |\n", filepath.Base(dir), len(queries), mode, s.hit1, s.hit10, s.mrr, s.per.Seconds()*1000)
	}
	return oneCharQueries(ctx, tl, dir, queries)
}

// oneCharQueries searches, for a language written without spaces, the
// first such character of each description alone (distinct ones, up to
// 200) and prints how many find a passage, with the number of terms
// analysis.Tokenize makes of the pages (what BM25 stores postings for).
func oneCharQueries(ctx context.Context, tl *testLibrary, dir string, qs []knownItem) error {
	seen := map[rune]bool{}
	answered, asked := 0, 0
	for _, q := range qs {
		i := strings.IndexFunc(q.text, analysis.IsUnspaced)
		if i < 0 || asked == 200 {
			continue
		}
		r, _ := utf8.DecodeRuneInString(q.text[i:])
		if seen[r] {
			continue
		}
		seen[r] = true
		asked++
		resp, err := tl.lib.Search(ctx, string(r), library.SearchOptions{K: 10, Mode: library.Lexical})
		if err != nil {
			return err
		}
		if len(resp.Results) > 0 {
			answered++
		}
	}
	if asked == 0 {
		return nil
	}
	terms := 0
	for _, q := range qs {
		b, err := os.ReadFile(filepath.Join(dir, "pages", q.id+".txt"))
		if err != nil {
			return err
		}
		terms += len(analysis.Tokenize(string(b)))
	}
	fmt.Printf("| %s | one-character queries: %d of %d find a passage; the pages make %d terms |\n", filepath.Base(dir), answered, asked, terms)
	return nil
}

// knownItem is a query and the one document that answers it.
type knownItem struct{ id, text string }

// readKnownItems reads "ID<TAB>query" lines.
func readKnownItems(path string) ([]knownItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []knownItem
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if id, text, ok := strings.Cut(sc.Text(), "\t"); ok && text != "" {
			out = append(out, knownItem{id, text})
		}
	}
	return out, sc.Err()
}

type knownItemResult struct {
	hit1, hit10, mrr float64
	per              time.Duration
}

// knownItemScores searches every query and ranks its page among the
// distinct documents of the first 100 passages.
func knownItemScores(ctx context.Context, lib *library.Library, qs []knownItem, mode library.Mode, docOf map[string]string) (knownItemResult, error) {
	var r knownItemResult
	ranks, total, err := knownItemRanks(ctx, lib, qs, mode, docOf)
	if err != nil {
		return r, err
	}
	for _, rank := range ranks {
		if rank == 0 {
			continue
		}
		r.mrr += 1 / float64(rank)
		if rank == 1 {
			r.hit1++
		}
		if rank <= 10 {
			r.hit10++
		}
	}
	n := float64(max(len(qs), 1))
	r.hit1, r.hit10, r.mrr, r.per = r.hit1/n, r.hit10/n, r.mrr/n, total/time.Duration(n)
	return r, nil
}

// knownItemRanks searches every query in mode and returns the rank of its
// page among the distinct documents of the first 100 passages (0 when it
// is not among them), per query, and the time all the searches took.
func knownItemRanks(ctx context.Context, lib *library.Library, qs []knownItem, mode library.Mode, docOf map[string]string) ([]int, time.Duration, error) {
	ranks := make([]int, len(qs))
	var total time.Duration
	for qi, q := range qs {
		start := time.Now()
		resp, err := lib.Search(ctx, q.text, library.SearchOptions{K: 100, Mode: mode})
		total += time.Since(start)
		if err != nil {
			return nil, 0, fmt.Errorf("query %s: %w", q.id, err)
		}
		seen := map[string]bool{}
		for _, res := range resp.Results {
			d := docOf[res.DocID]
			if seen[d] {
				continue
			}
			seen[d] = true
			if d == q.id {
				ranks[qi] = len(seen)
				break
			}
		}
	}
	return ranks, total, nil
}
