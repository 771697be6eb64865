package extract

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// corpusDir is the shared real-world PDF corpus (see
// /work/shared/pdfs/README.md); MCPVEC_PDF_CORPUS overrides it.
func corpusDir() string {
	if d := os.Getenv("MCPVEC_PDF_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "pdfs", "corpus")
}

type corpusFile struct {
	path     string
	password string // user password, "" when none is needed
}

// corpusFiles lists every PDF of the corpus with the user password from
// manifest.tsv; "owner:X" is an owner password, so no user password.
func corpusFiles(tb testing.TB) []corpusFile {
	tb.Helper()
	dir := corpusDir()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if len(paths) == 0 {
		tb.Skipf("shared PDF corpus not found at %s (set MCPVEC_PDF_CORPUS)", dir)
	}
	passwords := map[string]string{}
	if f, err := os.Open(filepath.Join(dir, "..", "manifest.tsv")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			cols := strings.Split(sc.Text(), "\t")
			if len(cols) >= 6 && cols[5] != "" && cols[5] != "password" && !strings.HasPrefix(cols[5], "owner:") {
				passwords[cols[0]] = cols[5]
			}
		}
	}
	sort.Strings(paths)
	files := make([]corpusFile, len(paths))
	for i, p := range paths {
		files[i] = corpusFile{path: p, password: passwords[filepath.Base(p)]}
	}
	return files
}

var corpusOCR = flag.String("corpus-ocr", "", "read the shared corpus with OCR in this mode (auto or always)")

var sentinels = []error{ErrEncrypted, ErrNoText, ErrMalformed, ErrTooLarge, ErrUnsupported, ErrTimeout, ErrGarbage}

// TestCorpusRobustness extracts every PDF of the shared corpus, two at a
// time: each must end with text or a one-line error wrapping a sentinel,
// without panic, within the document timeout, and without writing to
// os.Stdout.
//
// With -corpus-ocr=auto (or always) the files are read with OCR, to count
// how many scanned files OCR rescues.
func TestCorpusRobustness(t *testing.T) {
	files := corpusFiles(t)
	if *corpusOCR != "" {
		needTesseract(t)
	}
	if testing.Short() { // a deterministic quarter of the corpus
		var sub []corpusFile
		for i := 0; i < len(files); i += 4 {
			sub = append(sub, files[i])
		}
		t.Logf("-short: extracting %d of the %d corpus files", len(sub), len(files))
		files = sub
	}
	stdout := extracttest.CaptureStdout(t)
	start := time.Now()
	results := extractCorpus(t, files)
	elapsed := time.Since(start)
	if out := stdout(); out != "" {
		t.Errorf("extraction wrote %d bytes to os.Stdout: %.200q", len(out), out)
	}
	pages := checkCorpus(t, files, results)
	t.Logf("%s (%.0f pages/s)", elapsed.Round(time.Millisecond), float64(pages)/elapsed.Seconds())
}

// corpusDocTimeout is the document timeout of the corpus extractors.
const corpusDocTimeout = 60 * time.Second

// corpusResult is what extracting one corpus file gave.
type corpusResult struct {
	doc  *Document
	err  error
	took time.Duration
}

// extractCorpus extracts files two at a time, with one extractor per
// password.
func extractCorpus(t *testing.T, files []corpusFile) []corpusResult {
	exts := map[string]*Extractor{}
	for _, f := range files {
		if exts[f.password] != nil {
			continue
		}
		opts := testOptions()
		opts.Password, opts.DocTimeout, opts.PageTimeout = f.password, corpusDocTimeout, 20*time.Second
		if *corpusOCR != "" {
			opts.OCR = OCRMode(*corpusOCR)
		}
		exts[f.password] = newExtractor(t, opts)
	}
	results := make([]corpusResult, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(2, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				data, err := os.ReadFile(files[i].path)
				if err != nil {
					results[i].err = err
					continue
				}
				t0 := time.Now()
				doc, err := exts[files[i].password].Extract(context.Background(), filepath.Base(files[i].path), data)
				results[i] = corpusResult{doc, err, time.Since(t0)}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// checkCorpus checks and logs each result, returning the pages extracted.
func checkCorpus(t *testing.T, files []corpusFile, results []corpusResult) (pages int) {
	counts := map[string]int{}
	ok := 0
	for i, r := range results {
		name := filepath.Base(files[i].path)
		if r.took > corpusDocTimeout+10*time.Second {
			t.Errorf("%s: took %s, over the %s document timeout", name, r.took, corpusDocTimeout)
		}
		if r.err != nil {
			kind := "unexplained"
			for _, s := range sentinels {
				if errors.Is(r.err, s) {
					kind = s.Error()
					break
				}
			}
			counts[kind]++
			if kind == "unexplained" || strings.Contains(r.err.Error(), "\n") {
				t.Errorf("%s: error is not one clear line wrapping a sentinel: %q", name, r.err)
			}
			t.Logf("%-45s %6.2fs  error: %v", name, r.took.Seconds(), r.err)
			continue
		}
		ok++
		pages += len(r.doc.Pages)
		if core.TextQuality(joinPages(r.doc.Pages)) != nil {
			t.Errorf("%s: success without usable text", name)
		}
		t.Logf("%-45s %6.2fs  ok: %d pages, %d chars, title %q", name, r.took.Seconds(), len(r.doc.Pages), len(joinPages(r.doc.Pages)), r.doc.Title)
	}
	t.Logf("corpus: %d files, %d extracted (%d pages), failures by kind %v", len(files), ok, pages, counts)
	return pages
}

// joinPages joins pages, each ended by a line break.
func joinPages(pages []string) string {
	n := 0
	for _, p := range pages {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	for _, p := range pages {
		b = append(b, p...)
		b = append(b, '\n')
	}
	return string(b)
}
