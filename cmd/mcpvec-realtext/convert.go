package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// kind is how a packaged file becomes Markdown.
type kind int

const (
	skipFile kind = iota
	htmlFile      // an HTML page
	manFile       // a manual page, rendered by mandoc -Thtml
	pdfFile       // a PDF, read by pdftotext
)

// manPath matches a manual page: .../man/[lang/]manN/name.N[suffix][.gz].
var manPath = regexp.MustCompile(`/man/([^/]+/)?man[0-9n][^/]*/[^/]+\.[0-9n][a-z0-9]*(\.gz)?$`)

// skipHTML are generated pages that hold no prose of their own: indexes,
// search pages and Sphinx's copies of its sources.
var skipHTML = regexp.MustCompile(`/(_sources|_static|_images|_downloads)/|/(genindex[^/]*|search|py-modindex|modindex|bookindex|index-[a-z])\.html?$`)

// classify says how path is converted.
func classify(path string) kind {
	lower := strings.ToLower(path)
	switch {
	case manPath.MatchString(path):
		return manFile
	case strings.HasSuffix(lower, ".html") || strings.HasSuffix(lower, ".htm"):
		if skipHTML.MatchString(path) {
			return skipFile
		}
		return htmlFile
	case strings.HasSuffix(lower, ".pdf"):
		return pdfFile
	}
	return skipFile
}

// outName is where path of package pkg is written under out: the package,
// then the path below /usr/share (or the whole path), with ".md" appended.
func outName(out, pkg, path string) string {
	rel := strings.TrimPrefix(path, "/usr/share/")
	rel = strings.TrimPrefix(rel, "/")
	return filepath.Join(out, pkg, filepath.FromSlash(rel)+".md")
}

// minWords is the least a converted file must hold to be kept: smaller
// pages are redirects and stubs.
const minWords = 20

// convertOne writes the Markdown of path (of package pkg) under out. It
// returns false for a file that was skipped (kind, too little text).
func convertOne(ctx context.Context, out, pkg, path string) (bool, error) {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() || soPage(path) {
		return false, nil // links and .so pages repeat another file
	}
	var md string
	var err error
	switch classify(path) {
	case htmlFile:
		md, err = convertHTMLFile(path)
	case manFile:
		md, err = convertCommand(ctx, htmlToMarkdown, "mandoc", "-Thtml", "-Ofragment", path)
	case pdfFile:
		md, err = convertCommand(ctx, textToMarkdown, "pdftotext", "-q", "-enc", "UTF-8", path, "-")
	default:
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("convert %s: %w", path, err)
	}
	if len(strings.Fields(md)) < minWords {
		return false, nil
	}
	name := outName(out, pkg, path)
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return false, err
	}
	// Written whole or not at all (a temporary name, then renamed), so
	// that -resume can trust a Markdown file it finds.
	if err := os.WriteFile(name+".tmp", []byte(md), 0o644); err != nil {
		return false, err
	}
	return true, os.Rename(name+".tmp", name)
}

// soPage reports whether path is a manual page that only includes another
// (".so man1/other.1").
func soPage(path string) bool {
	if classify(path) != manFile {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return false
		}
		r = z
	}
	head := make([]byte, 200)
	n, _ := io.ReadFull(r, head)
	for _, line := range strings.Split(string(head[:n]), "\n") {
		if strings.HasPrefix(line, ".so ") {
			return true
		}
		if line != "" && !strings.HasPrefix(line, `.\"`) && !strings.HasPrefix(line, `'\"`) {
			return false
		}
	}
	return false
}

func convertHTMLFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return htmlToMarkdown(f)
}

// convertCommand runs a converter (at most a minute) and reads its output
// with read.
func convertCommand(ctx context.Context, read func(io.Reader) (string, error), name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil && len(b) == 0 {
		return "", fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(stderr.String()))
	}
	return read(bytes.NewReader(b))
}

// textToMarkdown turns plain text (pdftotext's) into Markdown paragraphs:
// a blank line or a form feed ends one, lines inside one are joined.
func textToMarkdown(r io.Reader) (string, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	var w mdWriter
	for _, line := range strings.Split(strings.ReplaceAll(string(b), "\f", "\n\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			w.flush()
			continue
		}
		w.para.WriteString(line + " ")
	}
	w.flush()
	return strings.TrimSpace(w.out.String()) + "\n", nil
}

// convertAll converts every "package<TAB>path" line of list on workers
// goroutines and reports counts to log; with resume, a file whose
// Markdown exists is kept as it is (a conversion cut short, resumed). A
// file that fails is reported and skipped, and a file with the same bytes
// as one listed before it is skipped (see dedup); only reading list fails
// the whole.
func convertAll(ctx context.Context, list io.Reader, out string, workers int, resume bool, log io.Writer) error {
	type job struct{ pkg, path string }
	jobs := make(chan job)
	var kept, failed, seen, repeats atomic.Int64
	var dups dedup
	var logMu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				ok, err := convertOne(ctx, out, j.pkg, j.path)
				if err != nil {
					failed.Add(1)
					logMu.Lock()
					fmt.Fprintln(log, "skip:", err)
					logMu.Unlock()
				} else if ok {
					kept.Add(1)
				}
			}
		}()
	}
	sc := bufio.NewScanner(list)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		pkg, path, ok := strings.Cut(sc.Text(), "\t")
		if !ok || classify(path) == skipFile || ctx.Err() != nil {
			continue
		}
		seen.Add(1)
		if dups.repeat(path) {
			// A copy of a file already listed: its Markdown, if an
			// earlier run wrote it, leaves the corpus too.
			repeats.Add(1)
			os.Remove(outName(out, pkg, path))
			continue
		}
		if resume {
			if _, err := os.Stat(outName(out, pkg, path)); err == nil {
				kept.Add(1)
				continue
			}
		}
		jobs <- job{pkg, path}
	}
	close(jobs)
	wg.Wait()
	fmt.Fprintf(log, "convert: %d files read, %d written, %d failed, %d repeats of another file\n",
		seen.Load(), kept.Load(), failed.Load(), repeats.Load())
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read file list: %w", err)
	}
	return ctx.Err()
}
