package main

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/store"
)

// doc is one converted file as ingest sees it: its passages (the text the
// lexical index is given, store.Chunk.IndexText) and its query candidates.
type doc struct {
	rel        string // path under the docs folder, slash-separated
	passages   []string
	candidates []candidate
}

// listDocs returns the .md files under dir, slash-separated and sorted.
func listDocs(dir string) ([]string, error) {
	var rels []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(rels)
	return rels, err
}

// docHash orders documents for a subset: deterministic by seed, spread
// over every package.
func docHash(seed uint64, rel string) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s", seed, rel)
	return h.Sum64()
}

// readDoc extracts and splits one file exactly as `mcpvec ingest` does
// (the product's extractor and chunker, default options) and draws its
// query candidates. A file ingest would refuse yields no passages.
func readDoc(ctx context.Context, ex *extract.Extractor, dir, rel string) (doc, error) {
	d := doc{rel: rel}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return d, err
	}
	xd, err := ex.Extract(ctx, rel, data)
	if err != nil {
		return d, nil // as ingest: the file is skipped
	}
	text := strings.Join(xd.Pages, "\n\n")
	heads := make([]chunk.Heading, len(xd.Headings))
	for i, h := range xd.Headings {
		heads[i] = chunk.Heading{Level: h.Level, Title: h.Title, Offset: h.Offset}
	}
	cs, err := chunk.SplitHeadings(text, nil, heads, chunk.DefaultOptions())
	if err != nil {
		return d, fmt.Errorf("split %s: %w", rel, err)
	}
	for _, c := range cs {
		sc := store.Chunk{Text: c.Text, Headings: c.Headings}
		d.passages = append(d.passages, sc.IndexText())
	}
	d.candidates = candidates(text, xd.Headings, cs)
	return d, nil
}

// readDocs reads rels on workers goroutines and hands each doc to take in
// the order of rels; take returns false to stop early.
func readDocs(ctx context.Context, dir string, rels []string, workers int, take func(doc) bool) error {
	ex, err := extract.New(ctx, extract.Options{OCR: extract.OCRNever})
	if err != nil {
		return err
	}
	defer ex.Close()
	type result struct {
		d   doc
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	futures := make(chan chan result, workers*4)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(futures)
		sem := make(chan struct{}, workers)
		for _, rel := range rels {
			f := make(chan result, 1)
			select {
			case futures <- f:
			case <-ctx.Done():
				return
			}
			sem <- struct{}{}
			go func() {
				d, err := readDoc(ctx, ex, dir, rel)
				<-sem
				f <- result{d, err}
			}()
		}
	}()
	defer wg.Wait()
	for f := range futures {
		r := <-f
		if r.err != nil {
			return r.err
		}
		if !take(r.d) {
			cancel()
			for range futures { // let the producer end
			}
			return nil
		}
	}
	return ctx.Err()
}

// tsvEscaper keeps a passage on one line of passages.tsv.
var tsvEscaper = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// writePassages writes "doc<TAB>index<TAB>text" lines, text escaped
// (backslash, tab, newline, carriage return as \\ \t \n \r).
func writePassages(w *bufio.Writer, d doc) {
	for i, p := range d.passages {
		fmt.Fprintf(w, "%s\t%d\t%s\n", d.rel, i, tsvEscaper.Replace(p))
	}
}
