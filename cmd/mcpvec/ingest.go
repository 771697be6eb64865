package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/corpus"
	"github.com/mcpvec/mcpvec/ingest/embed/ollama"
	"github.com/mcpvec/mcpvec/ingest/embed/openai"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store"
	"golang.org/x/term"
)

func runIngest(ctx context.Context, e *env, args []string) error {
	fs, lf, ef, ff := fileFlagSet("ingest", "[flags] PATH...", e)
	url := fs.String("url", "", "canonical web address of the single file being ingested (for citations)")
	prefix := fs.String("url-prefix", "", "map each file's path relative to the folder argument onto this web address")
	force := fs.Bool("force", false, "re-process files even when unchanged")
	verbose := fs.Bool("v", false, "print a line per ingested file")
	pos, err := parseArgs(fs, args, e, some)
	if err != nil {
		return err
	}
	for i := range pos {
		pos[i] = absPath(e, pos[i])
	}
	total, largest := corpusSize(pos, ff.maxBytes())
	lf.mapRoom = ingestRoom(largest, total)
	if e.forwarded == nil { // not inside a server, whose memory is not this command's
		defer limitMemory(largest, e.getenv("GOMEMLIMIT"))()
		defer lowerGC(e.getenv("GOGC"))()
	}
	return withLibrary(ctx, e, lf, append([]string{"ingest"}, args...), true, needSearch, func(h *handle) error {
		if err := ensureEmbedder(ctx, e, h, ef); err != nil {
			return err
		}
		defer hostReads(ctx, e, h, "ingest")()
		err := ingestFiles(ctx, e, h, pos, ff.extract(), ingest.Options{
			Chunk: ff.chunk(), MaxBytes: ff.maxBytes(), SizeHint: " (--max-size)",
			URL: *url, URLPrefix: *prefix, Force: *force, Workers: ff.workers, Report: termWriter{e.stderr}, Verbose: *verbose,
		})
		if err != nil {
			return err
		}
		return afterIngest(ctx, e, h)
	})
}

// fileFlags are the flags of the commands that read files (ingest, sync):
// the size limit, workers, PDF password, OCR and passage size.
type fileFlags struct {
	maxMB                  int64
	workers, size, overlap int
	password, ocr, ocrLang string
}

// fileFlagSet is the flag set of the commands that read files: the
// library, embedder and collection flags, then fileFlags.
func fileFlagSet(name, usageLine string, e *env) (*flag.FlagSet, *libFlags, *embedFlags, *fileFlags) {
	fs, lf, ef := embedFlagSet(name, usageLine, e)
	lf.registerCollection(fs, e)
	ff := &fileFlags{}
	ff.register(fs)
	return fs, lf, ef, ff
}

func (f *fileFlags) register(fs *flag.FlagSet) {
	def := chunk.DefaultOptions()
	fs.Int64Var(&f.maxMB, "max-size", 256, "largest file to ingest, in MiB")
	fs.IntVar(&f.size, "chunk-tokens", def.Size, "passage size in estimated tokens")
	fs.IntVar(&f.overlap, "overlap-tokens", def.Overlap, "overlap between passages in estimated tokens")
	fs.IntVar(&f.workers, "workers", 2, "files processed in parallel")
	fs.StringVar(&f.password, "password", "", "user password for encrypted PDFs")
	fs.StringVar(&f.ocr, "ocr", "auto", "read scanned pages and images with tesseract: auto (when installed), always, never")
	fs.StringVar(&f.ocrLang, "ocr-lang", "eng", "tesseract languages, e.g. eng+deu")
}

func (f *fileFlags) maxBytes() int64 { return f.maxMB << 20 }

func (f *fileFlags) chunk() chunk.Options { return chunk.Options{Size: f.size, Overlap: f.overlap} }

// extract returns the extractor's options. In a server, whose runtime has
// a P more than its CPUs (spareProc), the PDF engines stay one per CPU (up
// to the extractor's default of 4).
func (f *fileFlags) extract() extract.Options {
	return extract.Options{MaxBytes: f.maxBytes(), Password: f.password,
		OCR: extract.OCRMode(f.ocr), OCRLang: f.ocrLang, OCRWorkers: f.workers,
		MaxInstances: min(searchTurns, 4)}
}

// ingestFiles runs the ingest of paths into the open library with an
// extractor configured by xo, and prints its summary; when files failed
// (the summary names them) the error is errReported.
func ingestFiles(ctx context.Context, e *env, h *handle, paths []string, xo extract.Options, opts ingest.Options) error {
	ex, err := newExtractor(ctx, xo)
	if err != nil {
		return err
	}
	defer ex.Close()
	batch, par := embedBatching(e, h.emb.Identity())
	w := h.lib.BeginWrites(ctx, h.emb, h.emb.Identity(), batch, par, 30*time.Second)
	w.GroupCommits() // new documents committed together: a fraction of the writes
	if to := progressTo(e); to != nil {
		opts.Progress = newProgressLine(to, embedNote(w, h.emb, time.Now()))
	}
	sum, runErr := ingest.New(w, ex, w.Embedder(), opts).Run(ctx, paths)
	countWritten(e.forwarded, "ingest", sum.Ingested, 0)
	// The save keeps what was stored when ctx ended the run (Ctrl-C).
	if err := w.Finish(context.WithoutCancel(ctx), runErr == nil && len(sum.Failed) == 0); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, sum.String()+tokenNote(h))
	if errors.Is(runErr, ingest.ErrOneFileURL) {
		return errors.New("--url needs exactly one file argument (use --url-prefix for folders)")
	}
	if runErr != nil {
		return runErr
	}
	if len(sum.Failed) > 0 {
		return errReported
	}
	return nil
}

// ensureEmbedder records the embedder on a new library, or checks that
// flags asking for another one are refused with a pointer to reindex.
func ensureEmbedder(ctx context.Context, e *env, h *handle, ef *embedFlags) error {
	want := ef.identity(e)
	if h.emb != nil {
		have := h.emb.Identity()
		if want.Provider == corpus.Provider && (have.Provider == corpus.Provider || corpusWanted(h.db)) {
			return nil
		}
		if ef.set() && (want.Provider != have.Provider || (want.Model != "" && want.Model != have.Model) ||
			(want.Dimensions != 0 && want.Dimensions != have.Dimensions)) {
			return fmt.Errorf("the library was built with %s; to switch embedders run `mcpvec reindex` with the new --embedder/--embed-model", have)
		}
		return nil
	}
	if want.Provider == corpus.Provider {
		var err error
		if want, err = startCorpus(h); err != nil {
			return err
		}
	}
	emb, err := newEmbedder(ctx, e, want, modelStore(h.db))
	if err != nil {
		return fmt.Errorf("embedder: %w", err)
	}
	if err := h.docs.SetEmbedder(ctx, store.EmbedderInfo(emb.Identity())); err != nil {
		return err
	}
	h.emb = emb
	// Re-open the query path now that the library has dimensions.
	return h.reopenLib(ctx)
}

// newExtractor returns an Extractor with opts and the fallback worker.
func newExtractor(ctx context.Context, opts extract.Options) (*extract.Extractor, error) {
	exe, err := os.Executable()
	var worker []string
	if err == nil {
		worker = []string{exe, extractWorkerCmd}
	}
	opts.WorkerCommand = worker
	return extract.New(ctx, opts)
}

// embedNote adds embedding throughput to the ingest progress line when the
// embedder is cached (a network embedder), else it returns nil.
func embedNote(w *library.Writes, emb embed.Embedder, start time.Time) func() string {
	if _, ok := w.Cached(); !ok {
		return nil
	}
	return func() string {
		st, _ := w.Cached()
		secs := max(time.Since(start).Seconds(), 0.001)
		s := fmt.Sprintf("  embedded %d (%.0f/s)", st.Embedded, float64(st.Embedded)/secs)
		if st.Cached > 0 {
			s += fmt.Sprintf(", %d resumed", st.Cached)
		}
		if u, ok := emb.(interface{ Usage() openai.Usage }); ok {
			s += fmt.Sprintf(", %.0f tokens/s", float64(u.Usage().Tokens())/secs)
		}
		return s
	}
}

func tokenNote(h *handle) string {
	type usager interface{ Usage() openai.Usage }
	if u, ok := h.emb.(usager); ok {
		us := u.Usage()
		return fmt.Sprintf("; %d embedding tokens sent in %d requests (%d retries)", us.Tokens(), us.Requests, us.Retries)
	}
	if u, ok := h.emb.(interface{ Usage() ollama.Usage }); ok {
		us := u.Usage()
		return fmt.Sprintf("; %d tokens embedded by Ollama in %d requests (%d retries)", us.Tokens, us.Requests, us.Retries)
	}
	return ""
}

// progressTo returns where a progress line may be redrawn: stderr when it
// is a terminal and the command is not forwarded, else nil.
func progressTo(e *env) io.Writer {
	if f, ok := e.stderr.(*os.File); ok && e.forwarded == nil && term.IsTerminal(int(f.Fd())) {
		return e.stderr
	}
	return nil
}
