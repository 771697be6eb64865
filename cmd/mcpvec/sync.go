package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/extract"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
)

// syncConfig is how a sync reads and reports files, whatever its roots.
type syncConfig struct {
	maxBytes int64
	extract  extract.Options // MaxBytes is set from maxBytes
	workers  int
	verbose  bool
	retry    bool // read files remembered as unreadable again
	settle   time.Duration
	report   io.Writer
	progress func(ingest.Progress) // draws the progress line; nil: none
}

func runSync(ctx context.Context, e *env, args []string) error {
	fs, lf, ef, ff := fileFlagSet("sync", "[flags] [FOLDER...]", e)
	prefix := fs.String("url-prefix", "", "map each file's path relative to the folder onto this web address")
	var excludes stringList
	fs.Var(&excludes, "exclude", "gitignore-style `PATTERN` of files or folders to leave out (repeatable)")
	dry := fs.Bool("dry-run", false, "print what would change and change nothing")
	follow := fs.Bool("follow-links", false, "include symlinks that lead out of the folder (remembered with it); by default each is skipped with a line")
	cfg := syncConfig{report: termWriter{e.stderr}}
	fs.BoolVar(&cfg.verbose, "v", false, "print a line per change")
	fs.BoolVar(&cfg.retry, "retry", false, "read again the files earlier syncs could not read (each is reported once, then left alone until it changes)")
	pos, err := parseFlags(fs, args, e)
	if err != nil {
		return err
	}
	cfg.maxBytes, cfg.workers, cfg.extract = ff.maxBytes(), ff.workers, ff.extract()
	var roots []isync.Root
	for _, p := range pos {
		roots = append(roots, isync.Root{Path: absPath(e, p), URLPrefix: *prefix, Chunk: ff.chunk(), Exclude: excludes, FollowLinks: *follow})
	}
	return withLibrary(ctx, e, lf, append([]string{"sync"}, args...), !*dry, needSearch, func(h *handle) error {
		if h.db == nil {
			return errSyncNeedsFile
		}
		if !*dry {
			if err := ensureEmbedder(ctx, e, h, ef); err != nil {
				return err
			}
			defer hostReads(ctx, e, h, "sync")()
		}
		if len(roots) == 0 {
			var err error
			if roots, err = rememberedRoots(h); err != nil {
				return err
			}
		}
		if st := e.forwarded; st != nil {
			st.syncMu.Lock()
			defer st.syncMu.Unlock()
		}
		cfg.progress = newProgressLine(progressTo(e), nil)
		return syncCommand(ctx, e, h, roots, cfg, *dry, len(pos) > 0)
	})
}

// rememberedRoots returns the folders earlier syncs remembered, or an error
// saying how to sync the first one.
func rememberedRoots(h *handle) ([]isync.Root, error) {
	roots, err := isync.LoadRoots(h.db)
	if err == nil && len(roots) == 0 {
		err = errors.New("no folders synced yet: run `mcpvec sync FOLDER...` once; later a bare `mcpvec sync` re-syncs them")
	}
	return roots, err
}

// syncCommand plans or runs the sync of roots, remembers them and prints
// the summary; when files failed (the summary names them) the error is
// errReported.
func syncCommand(ctx context.Context, e *env, h *handle, roots []isync.Root, cfg syncConfig, dry, remember bool) error {
	if dry {
		p, err := newSyncer(h, cfg, nil).Plan(ctx, roots)
		if err != nil {
			return err
		}
		p.Print(e.stdout)
		return nil
	}
	if remember {
		if err := isync.Remember(h.db, roots); err != nil {
			return failf("remember folders: %w", err)
		}
	}
	sum, err := syncRoots(ctx, h, roots, cfg)
	countWritten(e.forwarded, "sync", sum.Added+sum.Updated, sum.Removed)
	fmt.Fprintln(e.stdout, sum.String())
	if err != nil {
		return err
	}
	if len(sum.Failed) > 0 {
		return errReported
	}
	return nil
}

// syncRoots runs one sync of roots in a write session on the handle's
// library; the serve watcher calls it too.
func syncRoots(ctx context.Context, h *handle, roots []isync.Root, cfg syncConfig) (isync.Summary, error) {
	id := h.emb.Identity()
	batch, par := embed.TraitsOf(id).Batching(4)
	w := h.lib.BeginWrites(ctx, h.emb, id, batch, par, 30*time.Second)
	var ex *extract.Extractor
	defer func() {
		if ex != nil {
			ex.Close()
		}
	}()
	ingestFn := func(ctx context.Context, r isync.Root, files []discover.File) (ingest.Summary, error) {
		if ex == nil {
			var err error
			xo := cfg.extract
			xo.MaxBytes = cfg.maxBytes
			if ex, err = newExtractor(ctx, xo); err != nil {
				return ingest.Summary{}, err
			}
		}
		return ingest.New(w, ex, w.Embedder(), ingest.Options{
			Chunk: r.Chunk, MaxBytes: cfg.maxBytes, SizeHint: " (--max-size)", URLPrefix: r.URLPrefix,
			Workers: cfg.workers, Report: cfg.report, Verbose: cfg.verbose, Progress: cfg.progress,
		}).Files(ctx, files)
	}
	sum, err := newSyncer(h, cfg, ingestFn).Run(ctx, roots)
	// The save keeps what was stored when ctx ended the sync.
	if ferr := w.Finish(context.WithoutCancel(ctx), err == nil && len(sum.Failed) == 0); ferr != nil && err == nil {
		err = ferr
	}
	return sum, err
}

func newSyncer(h *handle, cfg syncConfig, fn isync.IngestFunc) *isync.Syncer {
	o := isync.Options{Library: h.lib, Ingest: fn, Supported: supportedFile,
		Settle: cfg.settle, Report: cfg.report, Verbose: cfg.verbose, Retry: cfg.retry}
	if h.db != nil {
		o.Settings = h.db
	}
	return isync.New(o)
}

func supportedFile(name string) bool {
	_, ok := extract.MediaType(name, nil)
	return ok
}

// printRoots lists the remembered sync roots for `ls --roots`.
// errSyncNeedsFile: sync remembers its folders and file times in the
// library file, which a Weaviate library does not have.
var errSyncNeedsFile = errors.New("sync and ls --roots need a library file; a Weaviate library is kept current with ingest and rm")

func printRoots(e *env, h *handle, asJSON bool) error {
	if h.db == nil {
		return errSyncNeedsFile
	}
	roots, err := isync.LoadRoots(h.db)
	if err != nil {
		return err
	}
	if asJSON {
		if roots == nil {
			roots = []isync.Root{}
		}
		return writeJSON(e.stdout, map[string]any{"roots": roots})
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FOLDER\tURL PREFIX\tCHUNK\tEXCLUDE\tLINKS OUT")
	for _, r := range roots {
		links := "skipped"
		if r.FollowLinks {
			links = "followed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%v\t%s\n", termSafe(r.Path, false), termSafe(r.URLPrefix, false), r.Chunk.Size, r.Chunk.Overlap, r.Exclude, links)
	}
	tw.Flush()
	return nil
}
