package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/ingest/chunk"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/ingest/watch"
)

// watchFlags are serve's flags for keeping folders current, and its
// FOLDER arguments.
type watchFlags struct {
	on            bool
	followLinks   bool
	quiet, rescan time.Duration
	paths         []string
}

// parse parses serve's flags; FOLDER arguments are accepted only with
// --watch (else usage and errUsage).
func (f *watchFlags) parse(fs *flag.FlagSet, args []string, e *env) (err error) {
	f.paths, err = parseArgs(fs, args, e, func(n int) bool { return n == 0 || f.on })
	return err
}

// registerWatch adds serve's --watch flags to fs.
func registerWatch(fs *flag.FlagSet) *watchFlags {
	f := &watchFlags{}
	fs.BoolVar(&f.on, "watch", false, "keep folders current: the FOLDER arguments, else every folder `mcpvec sync` remembers")
	fs.DurationVar(&f.quiet, "watch-quiet", watch.DefaultQuiet, "with --watch: sync a folder once its files have been still this long")
	fs.BoolVar(&f.followLinks, "follow-links", false, "with --watch: include symlinks that lead out of a new watched folder (remembered with it)")
	fs.DurationVar(&f.rescan, "watch-rescan", watch.DefaultRescan, "with --watch: rescan every folder this often, for changes notifications miss (0: default, negative: never)")
	return f
}

// watchRoots returns the folders to watch: paths (remembered with their
// options if known, then remembered), else every remembered root.
func watchRoots(e *env, st *serveState, paths []string, followLinks bool) ([]isync.Root, error) {
	have, err := isync.LoadRoots(st.db)
	if err != nil || len(paths) == 0 {
		return have, err
	}
	var roots []isync.Root
	for _, p := range paths {
		p = absPath(e, p)
		i := slices.IndexFunc(have, func(r isync.Root) bool { return r.Path == p })
		if i >= 0 {
			roots = append(roots, have[i])
			continue
		}
		roots = append(roots, isync.Root{Path: p, Chunk: chunk.DefaultOptions(), FollowLinks: followLinks})
	}
	return roots, isync.Remember(st.db, roots)
}

// startWatch runs the watcher on the server's live library, with
// --watch, until the returned func is called (it waits for a sync in
// progress). Like the admin channel, a watcher that cannot start (no
// folders, a read-only library) is logged and the server serves without
// it.
func startWatch(ctx context.Context, e *env, st *serveState, wf *watchFlags) (stop func()) {
	stop, err := watchLive(ctx, e, st, wf)
	if err != nil {
		slog.Error("folders are not watched", "err", err)
		return func() {}
	}
	return stop
}

func watchLive(ctx context.Context, e *env, st *serveState, wf *watchFlags) (stop func(), err error) {
	if !wf.on {
		return func() {}, nil
	}
	if st.readOnly {
		return nil, errors.New("--watch needs a library it can write; it is served read-only")
	}
	paths := wf.paths
	roots, err := watchRoots(e, st, paths, wf.followLinks)
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return nil, fmt.Errorf("%w: pass folders to --watch or run `mcpvec sync FOLDER...` first", watch.ErrNoRoots)
	}
	cfg := syncConfig{maxBytes: 256 << 20, workers: 2, settle: wf.quiet, report: &onceSkipped{w: termWriter{e.stderr}}}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		o := watch.Options{Roots: roots, Quiet: wf.quiet, Rescan: wf.rescan, Logger: slog.Default(),
			Sync: func(ctx context.Context, roots []isync.Root) (isync.Summary, error) {
				st.syncMu.Lock()
				defer st.syncMu.Unlock()
				h := &handle{db: st.db, lib: st.live.Current(), emb: st.embedder(), close: func() {}}
				sum, err := syncRoots(ctx, h, roots, cfg)
				countWritten(st, "watch", sum.Added+sum.Updated, sum.Removed)
				return sum, err
			}}
		if len(paths) == 0 { // the remembered roots: follow `mcpvec sync NEW` too
			o.Reload = func() ([]isync.Root, error) { return isync.LoadRoots(st.db) }
		}
		if err := watch.Run(ctx, o); err != nil {
			slog.Error("folder watcher stopped", "err", err)
		}
	}()
	for _, r := range roots {
		slog.Info("watching folder", "path", r.Path)
	}
	return func() { cancel(); <-done }, nil
}

// onceSkipped passes a sync's report through, except a "skipped …" line
// (a link out of the folder, a FIFO) it has passed before: the watcher
// re-syncs a folder at every change, and each sync would say it again. It
// remembers at most maxRemembered lines; it is safe for concurrent use.
type onceSkipped struct {
	w    io.Writer
	mu   sync.Mutex
	seen map[string]bool
}

const maxRemembered = 10_000

func (o *onceSkipped) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("skipped ")) {
		return o.w.Write(p)
	}
	o.mu.Lock()
	said := o.seen[string(p)]
	if !said && len(o.seen) < maxRemembered {
		if o.seen == nil {
			o.seen = map[string]bool{}
		}
		o.seen[string(p)] = true
	}
	o.mu.Unlock()
	if said {
		return len(p), nil
	}
	return o.w.Write(p)
}
