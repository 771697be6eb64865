// Command mcpvec-realtext builds issue 41's real-text corpus from Debian
// documentation packages (scripts/realtext-corpus.sh installs them and
// calls it): text nobody on the project wrote, with known-item queries
// drawn from it.
//
//	dpkg -L PKG | sed 's/^/PKG\t/' | mcpvec-realtext convert -out OUT/docs
//	mcpvec-realtext build -docs OUT/docs -out OUT/100k -max 100000 -queries 2000
//
// convert reads "package<TAB>path" lines and writes each HTML page (the
// main text only: no navigation), manual page (rendered by mandoc) and
// PDF (pdftotext) as Markdown to DOCS/package/path.md; it skips links,
// .so pages, Sphinx sources and index pages, and pages under 20 words.
//
// build reads the Markdown as `mcpvec ingest` does (the product's
// extractor and chunker with default options) and writes, in OUT:
//
//	passages.tsv  doc<TAB>index<TAB>text: the text the lexical index is given
//	              (store.Chunk.IndexText), with \\ \t \n \r escaped
//	queries.tsv   id<TAB>doc<TAB>passage<TAB>kind<TAB>query<TAB>source
//	docs.txt      the documents, one path a line (under -docs)
//	lib/          (with -link) the documents hard-linked, to ingest
//
// A query is a section's heading (kind "heading", three words or more) or
// the first sentence of its text ("sentence", 6-40 words) with about 30%
// of its words dropped; passage is the index (in doc) of the passage
// holding the source's start. With -max N, build takes whole documents in
// an order set by -seed until they hold N passages or more, then writes
// them by path. Everything is deterministic given the packages, -seed and
// -max.
package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcpvec-realtext:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: mcpvec-realtext convert|build [flags]")
	}
	fs := flag.NewFlagSet("mcpvec-realtext "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	workers := fs.Int("j", 2, "files read at once")
	switch args[0] {
	case "convert":
		out := fs.String("out", "", "folder the Markdown is written to")
		resume := fs.Bool("resume", false, "keep the Markdown files that exist (resume a conversion cut short)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" {
			return errors.New("convert: -out is required")
		}
		return convertAll(ctx, stdin, *out, max(1, *workers), *resume, stderr)
	case "build":
		var b buildConfig
		fs.StringVar(&b.docs, "docs", "", "folder of Markdown written by convert")
		fs.StringVar(&b.out, "out", "", "folder passages.tsv, queries.tsv and docs.txt are written to")
		fs.IntVar(&b.max, "max", 0, "take documents until they hold this many passages (0: every document)")
		fs.IntVar(&b.queries, "queries", 2000, "known-item queries drawn")
		fs.Uint64Var(&b.seed, "seed", 1, "seed of the document order (with -max), the queries drawn and the words dropped")
		fs.BoolVar(&b.link, "link", false, "also hard-link the documents into OUT/lib, a folder to ingest")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if b.docs == "" || b.out == "" {
			return errors.New("build: -docs and -out are required")
		}
		b.workers = max(1, *workers)
		return b.build(ctx, stderr)
	}
	return fmt.Errorf("unknown command %q: want convert or build", args[0])
}

type buildConfig struct {
	docs, out     string
	max, queries  int
	seed          uint64
	link          bool
	workers       int
	passages, nd  int
	chosen        []doc
	sample        sampler
	passagesW     *bufio.Writer
	streamInOrder bool
}

// build writes passages.tsv, queries.tsv and docs.txt (see the package doc).
func (b *buildConfig) build(ctx context.Context, log io.Writer) error {
	rels, err := listDocs(b.docs)
	if err != nil {
		return fmt.Errorf("list documents: %w", err)
	}
	if err := os.MkdirAll(b.out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(b.out, "passages.tsv"))
	if err != nil {
		return err
	}
	defer f.Close()
	b.passagesW = bufio.NewWriterSize(f, 1<<20)
	b.sample.n = b.queries
	b.streamInOrder = b.max <= 0
	if !b.streamInOrder {
		slices.SortFunc(rels, func(x, y string) int {
			return cmp.Or(cmp.Compare(docHash(b.seed, x), docHash(b.seed, y)), strings.Compare(x, y))
		})
	}
	var names []string
	err = readDocs(ctx, b.docs, rels, b.workers, func(d doc) bool {
		if len(d.passages) == 0 {
			return true
		}
		names = append(names, d.rel)
		b.take(d)
		return b.streamInOrder || b.passages < b.max
	})
	if err != nil {
		return err
	}
	b.flushChosen()
	if err := b.passagesW.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(log, "build: %d documents, %d passages, %d queries in %s\n", b.nd, b.passages, len(b.sample.picks), b.out)
	return b.finish(names)
}

// take adds d: written at once in path order, or kept to be sorted.
func (b *buildConfig) take(d doc) {
	b.nd++
	b.passages += len(d.passages)
	b.sample.offer(b.seed, d)
	d.candidates = nil
	if b.streamInOrder {
		writePassages(b.passagesW, d)
		return
	}
	b.chosen = append(b.chosen, d)
}

func (b *buildConfig) flushChosen() {
	slices.SortFunc(b.chosen, func(x, y doc) int { return strings.Compare(x.rel, y.rel) })
	for _, d := range b.chosen {
		writePassages(b.passagesW, d)
	}
	b.chosen = nil
}

// finish writes queries.tsv and docs.txt and links the documents.
func (b *buildConfig) finish(names []string) error {
	slices.Sort(names)
	q, err := os.Create(filepath.Join(b.out, "queries.tsv"))
	if err != nil {
		return err
	}
	defer q.Close()
	if err := b.sample.write(q, b.seed); err != nil {
		return err
	}
	list := strings.Join(names, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(b.out, "docs.txt"), []byte(list), 0o644); err != nil {
		return err
	}
	if !b.link {
		return q.Close()
	}
	for _, n := range names {
		dst := filepath.Join(b.out, "lib", filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.Link(filepath.Join(b.docs, filepath.FromSlash(n)), dst); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("link %s: %w", n, err)
		}
	}
	return q.Close()
}
