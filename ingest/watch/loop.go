package watch

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/mcpvec/mcpvec/ingest/discover"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
)

// maxDirs bounds the folders watched per root, so a huge tree cannot
// exhaust the process; the rescan still covers the rest.
const maxDirs = 100_000

type watcher struct {
	opts    Options
	n       notifier
	dirty   map[int]time.Time // root index -> when to sync it
	since   map[int]time.Time // root index -> its first event not yet synced
	watched int               // folders added by the last addTree
}

// loop handles events, errors and timers until ctx is done.
func (w *watcher) loop(ctx context.Context) error {
	tick := time.NewTicker(min(max(w.opts.Quiet/4, 5*time.Millisecond), 250*time.Millisecond))
	defer tick.Stop()
	var rescan <-chan time.Time
	if w.opts.Rescan > 0 {
		t := time.NewTicker(w.opts.Rescan)
		defer t.Stop()
		rescan = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.n.Events():
			if !ok {
				return nil
			}
			w.event(ev)
		case err, ok := <-w.n.Errors():
			if !ok {
				return nil
			}
			w.error(err)
		case <-rescan:
			w.reload()
			w.addAll()
			w.markAll(time.Now())
		case now := <-tick.C:
			w.syncDue(ctx, now)
		}
	}
}

// event marks the root holding ev's path dirty, and watches a new folder.
func (w *watcher) event(ev fsnotify.Event) {
	name := filepath.Base(ev.Name)
	if strings.HasPrefix(name, ".") && name != discover.IgnoreFile {
		return
	}
	if discover.Temporary(name) {
		return
	}
	i := w.rootOf(ev.Name)
	if i < 0 {
		return
	}
	if ev.Has(fsnotify.Create) {
		w.addTree(ev.Name) // a no-op for files
	}
	w.postpone(i, time.Now())
}

// postpone moves root i's sync to Quiet after now, but never past MaxWait
// after its first unsynced event: one file written every 50 ms kept a new
// file beside it out of the library for 75 s, until the rescan. The busy
// file itself is left pending by the sync (Settle) until it is still.
func (w *watcher) postpone(i int, now time.Time) {
	first, ok := w.since[i]
	if !ok {
		first = now
		w.since[i] = now
	}
	at, limit := now.Add(w.opts.Quiet), first.Add(w.opts.MaxWait)
	if at.After(limit) {
		at = limit
	}
	w.dirty[i] = at
}

// error handles a notifier error: an overflow means events were lost, so
// every root is rescanned now.
func (w *watcher) error(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.opts.Logger.Warn("file watcher overflowed; rescanning every folder", "err", err)
		w.markAll(time.Time{})
		return
	}
	w.opts.Logger.Warn("file watcher", "err", err)
}

// reload replaces the roots with Options.Reload's. The dirty marks are
// indexes into the roots, so they are dropped: the caller marks every
// root.
func (w *watcher) reload() {
	if w.opts.Reload == nil {
		return
	}
	roots, err := w.opts.Reload()
	if err != nil || len(roots) == 0 {
		if err != nil {
			w.opts.Logger.Warn("reload folders to watch", "err", err)
		}
		return
	}
	w.opts.Roots = roots
	clear(w.dirty)
	clear(w.since)
}

func (w *watcher) markAll(at time.Time) {
	for i := range w.opts.Roots {
		w.dirty[i] = at
	}
}

// syncDue syncs, together, the roots whose quiet period is over.
func (w *watcher) syncDue(ctx context.Context, now time.Time) {
	var due []isync.Root
	var idx []int
	for i, at := range w.dirty {
		if !at.After(now) {
			due = append(due, w.opts.Roots[i])
			idx = append(idx, i)
		}
	}
	if len(due) == 0 {
		return
	}
	for _, i := range idx {
		delete(w.dirty, i)
		delete(w.since, i)
	}
	sum, err := w.opts.Sync(ctx, due)
	if w.opts.OnSync != nil {
		w.opts.OnSync(sum, err)
	}
	switch {
	case err != nil && ctx.Err() == nil:
		w.opts.Logger.Warn("sync", "err", err)
	case sum.Added+sum.Updated+sum.Moved+sum.Removed+len(sum.Failed) > 0:
		w.opts.Logger.Info("library updated", "summary", sum.String())
	default:
		w.opts.Logger.Debug("folders unchanged", "summary", sum.String())
	}
	if sum.Pending > 0 {
		for _, i := range idx {
			if _, ok := w.dirty[i]; !ok {
				w.dirty[i] = time.Now().Add(w.opts.Quiet)
			}
		}
	}
}

func (w *watcher) rootOf(path string) int {
	best := -1
	for i, r := range w.opts.Roots {
		if r.Contains(path) && (best < 0 || len(r.Path) > len(w.opts.Roots[best].Path)) {
			best = i
		}
	}
	return best
}

func (w *watcher) addAll() {
	for _, r := range w.opts.Roots {
		w.addTree(r.Path)
	}
}

// addTree watches dir and the folders below it, skipping hidden ones and
// not following symlinks. A path that is not a folder is ignored.
func (w *watcher) addTree(dir string) {
	w.watched = 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			w.opts.Logger.Debug("watch: skip folder", "path", p, "err", err)
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if w.watched >= maxDirs {
			return filepath.SkipAll
		}
		if err := w.n.Add(p); err != nil {
			w.opts.Logger.Warn("watch folder", "path", p, "err", err)
			return nil
		}
		w.watched++
		return nil
	})
}
