package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/cmd/internal/minipdf"
	"github.com/mcpvec/mcpvec/internal/evalset"
	"github.com/mcpvec/mcpvec/library"
)

// Long-document check: SciFact abstracts bundled into multi-page PDFs (an
// abstract may span a page break). A query scores a hit when one of its top
// five results is cited at a page (the url's #page=N) that holds part of a
// relevant abstract. Counting any page a passage spans would favour long
// passages.
const (
	linesPerPage    = 56
	lineWidth       = 95
	abstractsPerPDF = 25
	longDocTopK     = 5
)

type span struct {
	file                string
	firstPage, lastPage int
}

func longDoc(ctx context.Context, c config) error {
	base := filepath.Join(c.shared, "eval", "scifact")
	docs, queries, err := evalset.Load(base)
	if err != nil {
		return err
	}
	qrels, err := readQrels(filepath.Join(base, "qrels.tsv"))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mcpvec-longdoc-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	files := filepath.Join(dir, "pdfs")
	os.MkdirAll(files, 0o755)
	where, err := bundle(docs, files, c.outline, !c.bookmarkOnly)
	if err != nil {
		return err
	}
	fmt.Printf("\n## Long documents: %d SciFact abstracts in %d PDFs of %d abstracts (%d lines a page, outline %v, titles printed %v)\n\n",
		len(docs), (len(docs)+abstractsPerPDF-1)/abstractsPerPDF, abstractsPerPDF, linesPerPage, c.outline, !c.bookmarkOnly)
	fmt.Println("| chunk tokens | overlap | passages | mode | cited page relevant, top 5 | cited page relevant, rank 1 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, cs := range strings.Split(c.chunkSizes, ",") {
		size, err := strconv.Atoi(cs)
		if err != nil {
			return err
		}
		if err := longDocRun(ctx, c, dir, files, size, queries, qrels, where); err != nil {
			return fmt.Errorf("chunk size %d: %w", size, err)
		}
	}
	return nil
}

// bundle writes the abstracts into PDFs in a fixed shuffled order, each
// after its title when printTitles is set, with a bookmark per abstract
// title when outline is set, and returns where each abstract's text lies.
func bundle(docs []corpusDoc, dir string, outline, printTitles bool) (map[string]span, error) {
	order := rand.New(rand.NewSource(42)).Perm(len(docs))
	where := map[string]span{}
	for start := 0; start < len(order); start += abstractsPerPDF {
		name := fmt.Sprintf("bundle-%03d.pdf", start/abstractsPerPDF)
		var pages []minipdf.Page
		var cur minipdf.Page
		var marks []minipdf.Mark
		for _, i := range order[start:min(len(order), start+abstractsPerPDF)] {
			d := docs[i]
			lines := minipdf.Wrap(d.Text, lineWidth)
			if printTitles {
				lines = append(minipdf.Wrap(d.Title, lineWidth), lines...)
			}
			lines = append(lines, "")
			for j, l := range lines {
				if len(cur) == linesPerPage {
					pages, cur = append(pages, cur), nil
				}
				if j == 0 {
					marks = append(marks, minipdf.Mark{Title: d.Title, Page: len(pages), Line: len(cur)})
				}
				cur = append(cur, l)
			}
			where[d.ID] = span{name, marks[len(marks)-1].Page + 1, len(pages) + 1}
		}
		if len(cur) > 0 {
			pages = append(pages, cur)
		}
		if !outline {
			marks = nil
		}
		if err := os.WriteFile(filepath.Join(dir, name), minipdf.Write(pages, minipdf.Options{Title: name, Producer: "mcpvec-eval", Marks: marks}), 0o644); err != nil {
			return nil, err
		}
	}
	return where, nil
}

func longDocRun(ctx context.Context, c config, dir, files string, size int, queries []query, qrels map[string][]string, where map[string]span) error {
	libDir := filepath.Join(dir, "lib-"+strconv.Itoa(size))
	os.MkdirAll(libDir, 0o755)
	tl, err := openTestLibrary(ctx, c, libDir)
	if err != nil {
		return err
	}
	defer tl.db.Close()
	co := chunkOpts(c, size)
	sum, err := tl.ingest(ctx, []string{files}, co)
	if err != nil {
		return err
	}
	if c.embedder == "corpus" {
		if err := tl.useCorpus(ctx, c); err != nil {
			return err
		}
	}
	fileOf, err := pdfNames(tl.db)
	if err != nil {
		return err
	}
	for _, m := range strings.Split(c.modes, ",") {
		mode, err := library.ParseMode(m)
		if err != nil {
			return err
		}
		ranks, err := longDocRanks(ctx, tl.lib, mode, queries, qrels, where, fileOf)
		if err != nil {
			return err
		}
		hit5, hit1, n := 0, 0, 0
		for _, r := range ranks {
			if r >= 0 {
				n++
			}
			if r > 0 {
				hit5++
			}
			if r == 1 {
				hit1++
			}
		}
		fmt.Printf("| %d | %d | %d | %s | %.3f | %.3f |\n", co.Size, co.Overlap, sum.Chunks, mode, float64(hit5)/float64(n), float64(hit1)/float64(n))
	}
	return nil
}

// longDocRanks searches each query in mode and returns, per query, the
// rank (1 to longDocTopK) of its first result cited at a page that holds
// a relevant abstract, 0 when none is, and -1 for a query without a
// relevant abstract (not evaluated). fileOf maps document ids to PDF names.
func longDocRanks(ctx context.Context, lib *library.Library, mode library.Mode, queries []query, qrels map[string][]string, where map[string]span, fileOf map[string]string) ([]int, error) {
	ranks := make([]int, len(queries))
	for qi, q := range queries {
		rel := qrels[q.ID]
		if len(rel) == 0 {
			ranks[qi] = -1
			continue
		}
		resp, err := lib.Search(ctx, q.Text, library.SearchOptions{K: longDocTopK, Mode: mode})
		if err != nil {
			return nil, err
		}
		for i, r := range resp.Results {
			if onRelevantPage(fileOf[r.DocID], r.Page, rel, where) {
				ranks[qi] = i + 1
				break
			}
		}
	}
	return ranks, nil
}

func onRelevantPage(file string, page int, rel []string, where map[string]span) bool {
	for _, id := range rel {
		s, ok := where[id]
		if ok && s.file == file && page >= s.firstPage && page <= s.lastPage {
			return true
		}
	}
	return false
}

func readQrels(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		if g, err := strconv.Atoi(f[len(f)-1]); err == nil && g > 0 {
			m[f[0]] = append(m[f[0]], f[len(f)-2])
		}
	}
	for _, v := range m {
		sort.Strings(v)
	}
	return m, nil
}
