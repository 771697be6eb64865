// Package watch keeps synced folders current while a server runs: it
// listens for file-system notifications (fsnotify) and re-syncs a folder
// once its changes have settled, and rescans every folder periodically as
// the safety net for what notifications miss.
//
// # Caveats
//
//   - Notifications only say which folder to look at; what changed is
//     always decided by a sync of the whole root (package ingest/sync),
//     so a dropped, duplicated or reordered event costs nothing but time.
//   - A root is synced Quiet after its last event, so a file being written
//     (many events) is synced once, when it settles; the sync itself leaves
//     files modified within Quiet for later (Summary.Pending), which the
//     watcher retries, covering changes seen only by a rescan. A root that
//     never goes quiet (a log appended every 50 ms) is still synced MaxWait
//     after its first event, so the busy file cannot hold the others out.
//   - A notification queue overflow (fsnotify.ErrEventOverflow) triggers an
//     immediate rescan of every root. Editors that replace files (write a
//     temporary file, rename it over the original) and network mounts that
//     send no events are caught by the rename event or the periodic rescan.
//   - Folders are watched one by one (inotify is not recursive): new
//     folders are added when they appear and on every rescan. Hidden
//     folders and symlinked folders are not watched; the rescan still
//     covers symlinked ones.
//   - Syncs run one at a time, on the watcher's goroutine. Run returns
//     when ctx is done; a Watcher is not meant to be shared.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/fsnotify/fsnotify"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
)

// Defaults for Options.
const (
	DefaultQuiet  = time.Second
	DefaultRescan = 5 * time.Minute
	// maxWaitQuiets is MaxWait's default, in quiet periods.
	maxWaitQuiets = 4
)

// SyncFunc syncs roots and says what it did; Pending > 0 asks to be
// called again.
type SyncFunc func(ctx context.Context, roots []isync.Root) (isync.Summary, error)

// Options configures Run. Roots and Sync are required.
type Options struct {
	Roots []isync.Root
	Sync  SyncFunc
	// Quiet is how long a root must go without events before it is
	// synced (default DefaultQuiet).
	Quiet time.Duration
	// MaxWait bounds how long events may postpone a root's sync, from its
	// first event (default 4 × Quiet).
	MaxWait time.Duration
	// Rescan is the period of the full rescan (default DefaultRescan;
	// negative: never).
	Rescan time.Duration
	Logger *slog.Logger
	// Reload, if set, is called at every rescan for the roots to watch
	// from then on (e.g. the remembered roots, which `mcpvec sync` may have
	// added to); on error or no roots the current ones are kept.
	Reload func() ([]isync.Root, error)
	// OnSync, if set, is called after every sync (for tests and metrics).
	OnSync func(isync.Summary, error)

	notifier func() (notifier, error) // test seam; default fsnotify
}

// ErrNoRoots is returned by Run without roots.
var ErrNoRoots = errors.New("no folders to watch")

// notifier is the part of fsnotify.Watcher the watcher uses.
type notifier interface {
	Add(name string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

type fsNotifier struct{ w *fsnotify.Watcher }

func (f fsNotifier) Add(name string) error         { return f.w.Add(name) }
func (f fsNotifier) Events() <-chan fsnotify.Event { return f.w.Events }
func (f fsNotifier) Errors() <-chan error          { return f.w.Errors }
func (f fsNotifier) Close() error                  { return f.w.Close() }

func newFSNotifier() (notifier, error) {
	w, err := fsnotify.NewBufferedWatcher(1024)
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	return fsNotifier{w}, nil
}

func (o *Options) defaults() {
	if o.Quiet <= 0 {
		o.Quiet = DefaultQuiet
	}
	if o.MaxWait < o.Quiet {
		o.MaxWait = maxWaitQuiets * o.Quiet
	}
	if o.Rescan == 0 {
		o.Rescan = DefaultRescan
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.notifier == nil {
		o.notifier = newFSNotifier
	}
}

// Run syncs every root once, then watches them until ctx is done. It
// returns ErrNoRoots, an error starting the notifier, or nil when ctx
// ends; sync failures are logged and retried on the next change.
func Run(ctx context.Context, opts Options) error {
	if len(opts.Roots) == 0 {
		return ErrNoRoots
	}
	opts.defaults()
	n, err := opts.notifier()
	if err != nil {
		return err
	}
	defer n.Close()
	w := &watcher{opts: opts, n: n, dirty: map[int]time.Time{}, since: map[int]time.Time{}}
	w.addAll()
	w.markAll(time.Now())
	return w.loop(ctx)
}
