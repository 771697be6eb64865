package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/mcpvec/mcpvec/internal/evalset"
)

// passagesPerFile is what the default chunker (512 estimated tokens, 32 of
// overlap) makes of one generated file, measured on 2,000 files of seed 1
// (see docs/benchmarks/scale-1m.md#harness); the generator writes passages/passagesPerFile
// files and the harness reports the passage count ingest really made.
const passagesPerFile = 4.0

// sentencesPerFile is about how many sentences a file has, spread over its
// sections (the mean SciFact sentence is ~25 words).
const sentencesPerFile = 34

// filesPerFolder keeps folders small enough for any file system.
const filesPerFolder = 1000

// pool is what the generator recombines: every sentence and every title of
// a collection.
type pool struct {
	sentences []string
	titles    []string
}

// loadPool splits the abstracts of the collection in folder base (e.g.
// ../shared/eval/scifact) into sentences.
func loadPool(base string) (*pool, error) {
	docs, _, err := evalset.Load(base)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", base, err)
	}
	p := &pool{}
	for _, d := range docs {
		if t := strings.TrimSpace(d.Title); t != "" {
			p.titles = append(p.titles, strings.TrimSuffix(t, "."))
		}
		p.sentences = append(p.sentences, sentences(d.Text)...)
	}
	if len(p.sentences) < 100 || len(p.titles) < 10 {
		return nil, fmt.Errorf("%s: too few sentences (%d) or titles (%d) to recombine", base, len(p.sentences), len(p.titles))
	}
	return p, nil
}

// sentences cuts text after ". " followed by a capital letter or digit, the
// way abstracts end their sentences (and "e.g. the" does not).
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(text); i++ {
		if text[i] != '.' || text[i+1] != ' ' {
			continue
		}
		if c := text[i+2]; (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			out = append(out, strings.TrimSpace(text[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(text[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// document writes file i of the corpus of seed: a title, then three to five
// sections, each a heading and two or three paragraphs of sentences drawn
// from the whole collection. It depends only on (seed, i).
func (p *pool) document(seed uint64, i int) string {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.titles[r.IntN(len(p.titles))])
	sections := 3 + r.IntN(3)
	perSection := sentencesPerFile / sections
	for s := 0; s < sections; s++ {
		fmt.Fprintf(&b, "## %s\n\n", heading(p.titles[r.IntN(len(p.titles))], r))
		left := perSection
		for left > 0 {
			n := min(left, 4+r.IntN(6))
			left -= n
			for k := 0; k < n; k++ {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(p.sentences[r.IntN(len(p.sentences))])
			}
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// heading is the first three to six words of a title.
func heading(title string, r *rand.Rand) string {
	words := strings.Fields(title)
	return strings.Join(words[:min(len(words), 3+r.IntN(4))], " ")
}

// writeCorpus writes files documents of seed under dir (dir/0000/000000.md,
// …) from workers goroutines. A file already there is rewritten, so a
// corpus is the same whatever was in dir before, and stale extra files are
// the caller's to remove.
func (p *pool) writeCorpus(ctx context.Context, dir string, seed uint64, files, workers int) error {
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := p.writeFile(dir, seed, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for i := 0; i < files; i++ {
		select {
		case next <- i:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(next)
	wg.Wait()
	close(errs)
	if err == nil {
		err = <-errs
	}
	return err
}

func (p *pool) writeFile(dir string, seed uint64, i int) error {
	sub := filepath.Join(dir, fmt.Sprintf("%04d", i/filesPerFolder))
	if i%filesPerFolder == 0 {
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
	}
	path := filepath.Join(sub, fmt.Sprintf("%07d.md", i))
	f, err := os.Create(path)
	if err != nil {
		// The folder's first file may be written by another worker.
		if err = os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		if f, err = os.Create(path); err != nil {
			return err
		}
	}
	w := bufio.NewWriter(f)
	w.WriteString(p.document(seed, i))
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// corpusOnly writes the corpus run would ingest (same files for the same
// -passages and -seed) to c.corpusOnly, for harnesses that read the files
// themselves (bench/anchors, through cmd/mcpvec-realtext build).
func corpusOnly(ctx context.Context, c config) error {
	p, err := loadPool(filepath.Join(c.shared, "eval", "scifact"))
	if err != nil {
		return err
	}
	files := max(1, int(float64(c.passages)/passagesPerFile+0.5))
	return p.writeCorpus(ctx, c.corpusOnly, c.seed, files, runtime.NumCPU())
}
