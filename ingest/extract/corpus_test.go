package extract

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
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
	const docTimeout = 60 * time.Second
	exts := map[string]*Extractor{}
	for _, f := range files {
		if exts[f.password] != nil {
			continue
		}
		opts := testOptions()
		opts.Password, opts.DocTimeout, opts.PageTimeout = f.password, docTimeout, 20*time.Second
		if *corpusOCR != "" {
			opts.OCR = OCRMode(*corpusOCR)
		}
		e := newExtractor(t, opts)
		exts[f.password] = e
	}

	type result struct {
		doc  *Document
		err  error
		took time.Duration
	}
	results := make([]result, len(files))
	stdout := captureStdout(t)
	start := time.Now()
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
				results[i] = result{doc, err, time.Since(t0)}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	if out := stdout(); out != "" {
		t.Errorf("extraction wrote %d bytes to os.Stdout: %.200q", len(out), out)
	}

	counts := map[string]int{}
	pages, ok := 0, 0
	for i, r := range results {
		name := filepath.Base(files[i].path)
		if r.took > docTimeout+10*time.Second {
			t.Errorf("%s: took %s, over the %s document timeout", name, r.took, docTimeout)
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
		if textQuality(joinPages(r.doc.Pages)) != nil {
			t.Errorf("%s: success without usable text", name)
		}
		t.Logf("%-45s %6.2fs  ok: %d pages, %d chars, title %q", name, r.took.Seconds(), len(r.doc.Pages), len(joinPages(r.doc.Pages)), r.doc.Title)
	}
	t.Logf("corpus: %d files, %d extracted (%d pages), failures by kind %v, %s (%.0f pages/s)",
		len(files), ok, pages, counts, elapsed.Round(time.Millisecond), float64(pages)/elapsed.Seconds())
}

// captureStdout points os.Stdout at a pipe until the returned function is
// called, which restores it and returns what was written.
func captureStdout(tb testing.TB) func() string {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	orig := os.Stdout
	os.Stdout = w
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	done := false
	restore := func() string {
		if done {
			return ""
		}
		done = true
		os.Stdout = orig
		w.Close()
		s := <-got
		r.Close()
		return s
	}
	tb.Cleanup(func() { restore() })
	return restore
}
