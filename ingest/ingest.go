package ingest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/internal/bytesize"
	"github.com/mcpvec/mcpvec/store"
	"golang.org/x/sync/errgroup"
)

// Embedder is what ingest needs from an embedder.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Extractor is what ingest needs from a text extractor.
type Extractor interface {
	Extract(ctx context.Context, name string, data []byte) (*extract.Document, error)
}

// Options configures an Ingester. Zero values mean the defaults.
type Options struct {
	Chunk    chunk.Options // default chunk.DefaultOptions()
	MaxBytes int64         // files larger fail as too large (default 256 MiB)
	// SizeHint is appended to the too-large error, e.g. how to raise
	// MaxBytes.
	SizeHint  string
	URL       string // source URL for a single file argument
	URLPrefix string // source URL = prefix + path relative to the folder argument
	Force     bool   // re-process unchanged files
	Workers   int    // files processed in parallel (default 2)
	// DropOriginals skips storing each file's bytes; by default they are
	// kept so the server's /docs links can serve the original file.
	DropOriginals bool
	// Progress, if set, is told where the run stands (a Progress) when it
	// starts, after each file and when it ends; cmd draws a terminal line
	// from it. Calls come one at a time, never concurrently.
	Progress func(Progress)
	// Report receives one line per file that was not ingested (and, with
	// Verbose, per ingested file); nil discards them.
	Report  io.Writer
	Verbose bool
	Logger  *slog.Logger
}

// ErrOneFileURL is returned by Run when Options.URL is set with other than
// one file argument.
var ErrOneFileURL = errors.New("a source URL needs exactly one file argument (use a URL prefix for folders)")

// FileError says why one file was not ingested.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Lasting reports whether the failure says something about the file's
// content that only a change to the file can change (extract.Lasting):
// sync reports such a file once, then leaves it alone until it changes.
func (e *FileError) Lasting() bool { return extract.Lasting(e.Err) }

// Summary counts what a Run did.
type Summary struct {
	Ingested, Unchanged, Duplicates, Skipped int
	Failed                                   []*FileError
	Pages, Chunks                            int
	Removed                                  int // passages replaced by new versions
	Elapsed                                  time.Duration
}

// String is the one summary line printed at the end of an ingest.
func (s Summary) String() string {
	return fmt.Sprintf("ingested %s (%s, %s); %d unchanged, %s, %d skipped, %d failed in %s",
		counted(s.Ingested, "document"), counted(s.Pages, "page"), counted(s.Chunks, "passage"), s.Unchanged,
		counted(s.Duplicates, "duplicate"), s.Skipped, len(s.Failed), s.Elapsed.Round(time.Millisecond))
}

// counted is "1 page", "0 pages", "2 pages".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Library is an Ingester's one door to storage: where it looks documents
// up and stores them. The library's write session (library.Writes)
// implements it: Put indexes what it stores and keeps the resumable embed
// cache. Its methods must be safe for concurrent use. Lookups of an
// unknown document return an error.
type Library interface {
	// DocumentByPath returns the document ingested from path, without
	// its text.
	DocumentByPath(ctx context.Context, path string) (*store.Document, error)
	// DocumentInfo returns document id, without its text.
	DocumentInfo(ctx context.Context, id string) (*store.Document, error)
	// Put stores a document with its passages, their vectors and its
	// original bytes (nil: none), replacing an earlier version with the
	// same id or path. Its error fails that file; one wrapping
	// store.ErrCorrupt stops the batch.
	Put(ctx context.Context, doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error)
}

// Ingester writes documents into one library.
type Ingester struct {
	lib  Library
	ex   Extractor
	emb  Embedder
	opts Options

	mu     sync.Mutex
	claims map[string]string // document id -> the path being ingested under it
}

// New returns an Ingester writing through lib. The library's embedder
// identity must already be recorded (store.DB.SetEmbedder).
func New(lib Library, ex Extractor, emb Embedder, opts Options) *Ingester {
	if opts.Chunk == (chunk.Options{}) {
		opts.Chunk = chunk.DefaultOptions()
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 256 << 20
	}
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.Report == nil {
		opts.Report = io.Discard
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Ingester{lib: lib, ex: ex, emb: emb, opts: opts}
}

type outcome int

const (
	ingested outcome = iota
	unchanged
	duplicate
	failed
)

// Run ingests every supported file under args. It returns an error only
// when nothing could be attempted (bad options, cancelled context); per-file
// failures are in Summary.Failed.
func (in *Ingester) Run(ctx context.Context, args []string) (Summary, error) {
	start := time.Now()
	var sum Summary
	if in.opts.URL != "" && len(args) != 1 {
		return sum, ErrOneFileURL
	}
	if err := in.opts.Chunk.Validate(); err != nil {
		return sum, err
	}
	files, skipped, errs := discover.Walk(ctx, args, supported)
	for _, s := range skipped {
		fmt.Fprintf(in.opts.Report, "skipped %s: %s\n", s.Path, s.Reason)
	}
	sum.Skipped = len(skipped)
	for _, err := range errs {
		fe := &FileError{Err: err}
		var pe *os.PathError
		if errors.As(err, &pe) {
			fe = &FileError{Path: pe.Path, Err: pe.Err}
		}
		sum.Failed = append(sum.Failed, fe)
		fmt.Fprintf(in.opts.Report, "failed %s\n", fe)
	}
	err := in.files(ctx, files, &sum)
	sum.Elapsed = time.Since(start)
	return sum, cmp.Or(err, ctx.Err())
}

// Files ingests the given files, as found by discover.Walk or
// discover.WalkWith (Rel gives the source URL with Options.URLPrefix),
// adding to what Run would count. It returns an error only when nothing
// could be attempted; per-file failures are in Summary.Failed. It is safe
// for concurrent use.
func (in *Ingester) Files(ctx context.Context, files []discover.File) (Summary, error) {
	start := time.Now()
	var sum Summary
	if err := in.opts.Chunk.Validate(); err != nil {
		return sum, err
	}
	err := in.files(ctx, files, &sum)
	sum.Elapsed = time.Since(start)
	return sum, cmp.Or(err, ctx.Err())
}

// files ingests files, Workers at a time, recording into sum. A damaged
// library file (store.ErrCorrupt) is no one file's failure: it stops the
// batch and comes back as the error.
func (in *Ingester) files(ctx context.Context, files []discover.File, sum *Summary) error {
	prog := newProgress(in.opts.Progress, len(files))
	defer prog.stop()
	var mu sync.Mutex
	var damaged error
	var g errgroup.Group
	g.SetLimit(in.opts.Workers)
	for _, f := range files {
		mu.Lock()
		stop := damaged != nil
		mu.Unlock()
		if stop || ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r := in.file(ctx, f)
			mu.Lock()
			defer mu.Unlock()
			if r.how == failed && errors.Is(r.err, store.ErrCorrupt) {
				damaged = cmp.Or(damaged, r.err)
				return nil
			}
			in.record(sum, f, r)
			prog.add(r.pages, r.chunks)
			return nil
		})
	}
	g.Wait()
	return damaged
}

// fileResult is what ingesting one file did.
type fileResult struct {
	how                    outcome
	pages, chunks, removed int   // when ingested
	err                    error // why it failed or is a duplicate
}

func failure(err error) fileResult { return fileResult{how: failed, err: err} }

// record adds a file's result to sum and reports it.
func (in *Ingester) record(sum *Summary, f discover.File, r fileResult) {
	switch r.how {
	case ingested:
		sum.Ingested++
		sum.Pages += r.pages
		sum.Chunks += r.chunks
		sum.Removed += r.removed
		if in.opts.Verbose {
			fmt.Fprintf(in.opts.Report, "ingested %s (%d pages, %d passages)\n", f.Path, r.pages, r.chunks)
		}
	case unchanged:
		sum.Unchanged++
	case duplicate:
		sum.Duplicates++
		fmt.Fprintf(in.opts.Report, "duplicate %s: %v\n", f.Path, r.err)
	case failed:
		fe := &FileError{Path: f.Path, Err: r.err}
		sum.Failed = append(sum.Failed, fe)
		fmt.Fprintf(in.opts.Report, "failed %s\n", fe)
	}
}

func supported(name string) bool {
	_, ok := extract.MediaType(name, nil)
	return ok
}

// file ingests one file.
func (in *Ingester) file(ctx context.Context, f discover.File) (res fileResult) {
	defer func() {
		// A bug in a dependency must not take the batch down.
		if r := recover(); r != nil {
			res = failure(fmt.Errorf("internal error: %v", r))
		}
	}()
	if ctx.Err() != nil {
		return failure(ctx.Err())
	}
	if f.Size > in.opts.MaxBytes {
		return failure(fmt.Errorf("%w: %s exceeds the %s limit%s", extract.ErrTooLarge, bytesize.Format(f.Size), bytesize.Format(in.opts.MaxBytes), in.opts.SizeHint))
	}
	// The file the walk listed, no more: a path swapped for a FIFO or a
	// link to /dev/zero since then is refused, not read for ever.
	data, err := f.Read()
	if err != nil {
		return failure(err)
	}
	shaHex, err := ContentHash(bytes.NewReader(data))
	if err != nil {
		return failure(err)
	}
	id := shaHex[:16]
	srcURL := in.sourceURL(f)
	if !in.opts.Force {
		if old, err := in.lib.DocumentByPath(ctx, f.Path); err == nil && old.SHA256 == shaHex && old.SourceURL == srcURL {
			return fileResult{how: unchanged}
		}
	}
	// Two files of one content are one document: the first to claim it is
	// ingested, the other reported, never stored over it.
	if other := in.claim(id, f.Path); other != "" {
		return duplicateOf(other, id)
	}
	defer in.release(id)
	if !in.opts.Force {
		if other, err := in.lib.DocumentInfo(ctx, id); err == nil && other.SourcePath != f.Path {
			return duplicateOf(other.SourcePath, id)
		}
	}
	return in.process(ctx, f, data, shaHex, srcURL)
}

// duplicateOf is the result of a file with the same content as the file
// at path, stored (or being stored) as document id.
func duplicateOf(path, id string) fileResult {
	return fileResult{how: duplicate, err: fmt.Errorf("same content as %s (document %s)", path, id)}
}

// claim marks document id as being ingested from path, unless another
// file is being ingested as id now: then it returns that file's path.
func (in *Ingester) claim(id, path string) (other string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if p, ok := in.claims[id]; ok && p != path {
		return p
	}
	if in.claims == nil {
		in.claims = map[string]string{}
	}
	in.claims[id] = path
	return ""
}

func (in *Ingester) release(id string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	delete(in.claims, id)
}

// ContentHash returns the hex SHA-256 of what r yields: a document's SHA256,
// whose first 16 characters are its ID. ingest/sync hashes files with it to
// recognise content already stored; errors are r's.
func ContentHash(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// process extracts, splits, embeds and stores a new or changed file.
func (in *Ingester) process(ctx context.Context, f discover.File, data []byte, shaHex, srcURL string) fileResult {
	xd, err := in.ex.Extract(ctx, f.Path, data)
	if err != nil {
		return failure(err)
	}
	text, starts := joinPages(xd.Pages)
	cs, err := chunk.SplitHeadings(text, starts, headings(xd.Headings, starts), in.opts.Chunk)
	if err != nil {
		return failure(fmt.Errorf("split into passages: %w", err))
	}
	if len(cs) == 0 {
		return failure(extract.ErrNoText)
	}
	sc := make([]store.Chunk, len(cs))
	for i, c := range cs {
		sc[i] = store.Chunk{Text: c.Text, Start: c.Start, End: c.End, PageStart: c.PageStart, PageEnd: c.PageEnd, Headings: c.Headings}
	}
	vecs, err := in.embed(ctx, sc)
	if err != nil {
		return failure(fmt.Errorf("embed: %w", err))
	}
	doc := &store.Document{
		ID: shaHex[:16], Title: title(xd, f.Path), SourcePath: f.Path, SourceURL: srcURL,
		MediaType: xd.MediaType, SHA256: shaHex, Size: int64(len(data)), ModTime: f.ModTime.UTC(), Created: xd.Created.UTC(), Pages: len(xd.Pages),
		IngestedAt: time.Now().UTC(), PageStarts: starts, Text: text,
	}
	var orig []byte
	if !in.opts.DropOriginals {
		orig = data
	}
	put, err := in.lib.Put(ctx, doc, sc, vecs, orig)
	if err != nil {
		return failure(err)
	}
	return fileResult{how: ingested, pages: len(xd.Pages), chunks: len(cs), removed: len(put.Removed)}
}

// embedWindow is how many passages are embedded per call: the texts sent
// (a passage under its headings is a copy) stay a few megabytes whatever
// the document's size, and a network embedder still gets enough at once to
// fill its parallel batches.
const embedWindow = 4096

// embed returns the vectors of the passages' index texts, embedWindow
// passages at a time; errors are the embedder's.
func (in *Ingester) embed(ctx context.Context, sc []store.Chunk) ([][]float32, error) {
	vecs := make([][]float32, 0, len(sc))
	for start := 0; start < len(sc); start += embedWindow {
		batch := sc[start:min(start+embedWindow, len(sc))]
		texts := make([]string, len(batch))
		for i := range batch {
			texts[i] = batch[i].IndexText()
		}
		v, err := in.emb.Embed(ctx, texts)
		if err != nil {
			return nil, err
		}
		vecs = append(vecs, v...)
	}
	return vecs, nil
}

// joinPages joins page texts with a blank line and returns where each page
// starts. One page is returned as it is, without a copy.
func joinPages(pages []string) (string, []int) {
	if len(pages) == 1 {
		return pages[0], []int{0}
	}
	var b strings.Builder
	n := 0
	for _, p := range pages {
		n += len(p) + 2
	}
	b.Grow(n)
	starts := make([]int, len(pages))
	for i, p := range pages {
		if i > 0 {
			b.WriteString("\n\n")
		}
		starts[i] = b.Len()
		b.WriteString(p)
	}
	return b.String(), starts
}

// headings places the extracted headings in the joined text.
func headings(hs []extract.Heading, starts []int) []chunk.Heading {
	out := make([]chunk.Heading, len(hs))
	for i, h := range hs {
		out[i] = chunk.Heading{Level: h.Level, Title: h.Title, Offset: starts[h.Page] + h.Offset}
	}
	return out
}

func title(d *extract.Document, path string) string {
	if t := strings.TrimSpace(d.Title); t != "" {
		return t
	}
	return filepath.Base(path)
}

func (in *Ingester) sourceURL(f discover.File) string {
	if in.opts.URL != "" {
		return in.opts.URL
	}
	return SourceURL(in.opts.URLPrefix, f.Rel)
}

// SourceURL maps a file's slash-separated path rel, relative to its folder
// argument, onto a URL prefix, escaping each segment; "" without a prefix.
func SourceURL(prefix, rel string) string {
	if prefix == "" {
		return ""
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.TrimSuffix(prefix, "/") + "/" + strings.Join(parts, "/")
}
