package library

import (
	"context"
	"sync/atomic"
	"time"
)

// Live is the library a running server answers from. Writes go to the
// current Library; a reindex replaces it with Swap. It is safe for
// concurrent use: calls in flight finish on the Library they started on,
// which stays consistent in memory.
type Live struct {
	cur atomic.Pointer[Library]
}

// NewLive returns a Live serving l. It releases the library file's pages
// that opening l mapped (Library.ReleaseMapped): a server's resident memory
// is then its indexes, not the file. What the backend deferred (the
// embedded vector index of a library whose default mode does not use it)
// stays unloaded until a search, count or write needs it: the MCP tools search in the default
// mode, so a server of such a library may never need it (at a million
// passages it is ~0.55 GB of memory, and its load maps ~2.4 GB of the file).
func NewLive(l *Library) *Live {
	lv := &Live{}
	lv.Swap(l)
	return lv
}

// release releases l's mapped pages, logging a failure.
func release(l *Library) {
	if err := l.ReleaseMapped(); err != nil {
		l.opts.Logger.Warn("could not release the library file's mapped pages", "err", err)
	}
}

// ReleaseEvery releases the current Library's mapped pages
// (Library.ReleaseMapped) every interval until ctx is done, so that the
// pages searches and fetches map do not pile up in a long-running server's
// resident memory: they stay in the kernel's page cache, and a later read
// maps them again from memory. Failures are logged. It blocks; run it in a
// goroutine.
func (lv *Live) ReleaseEvery(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l := lv.Current()
			if err := l.ReleaseMapped(); err != nil && ctx.Err() == nil {
				l.opts.Logger.Warn("could not release the library file's mapped pages", "err", err)
			}
		}
	}
}

// Current returns the Library being served.
func (lv *Live) Current() *Library { return lv.cur.Load() }

// Mode is the current library's default search mode.
func (lv *Live) Mode() Mode { return lv.Current().Mode() }

// Swap makes l the Library being served and releases the pages opening it
// mapped, as NewLive does.
func (lv *Live) Swap(l *Library) {
	lv.cur.Store(l)
	release(l)
}

// Search is Library.Search on the current Library.
func (lv *Live) Search(ctx context.Context, query string, so SearchOptions) (*SearchResponse, error) {
	return lv.Current().Search(ctx, query, so)
}

// Fetch is Library.Fetch on the current Library.
func (lv *Live) Fetch(ctx context.Context, id string, fo FetchOptions) (*FetchResponse, error) {
	return lv.Current().Fetch(ctx, id, fo)
}

// Original is Library.Original on the current Library.
func (lv *Live) Original(ctx context.Context, id string) (*Original, error) {
	return lv.Current().Original(ctx, id)
}

// View is Library.View on the current Library.
func (lv *Live) View(ctx context.Context, id string) (*View, error) {
	return lv.Current().View(ctx, id)
}

// Summary is Library.Summary on the current Library.
func (lv *Live) Summary(ctx context.Context) (Summary, error) {
	return lv.Current().Summary(ctx)
}

// SearchWith is Library.Search on the current Library with options.
func (lv *Live) SearchWith(ctx context.Context, query string, so SearchOptions) (*SearchResponse, error) {
	return lv.Current().Search(ctx, query, so)
}
