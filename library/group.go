package library

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/store"
)

// Group commits: an ingest stored each document in a commit of its own,
// and each commit rewrote every page it touched on the way from a leaf to
// its bucket's root in a dozen buckets, plus a meta page: ~200 KiB a
// document against ~40 KiB of it kept in the file
// (docs/benchmarks/ingest-writes.md). Writes.GroupCommits makes a write
// session hold new documents and commit them together, groupMaxDocs or
// groupMaxBytes at a time and at most groupMaxAge after the first one
// waited. A document is still stored whole or not at all (a group is one
// transaction); a process killed loses the group not yet committed, which
// the next run ingests again, as it does a document in flight.

// Limits of a group of documents (variables for tests). A group costs
// the heap more than its documents: bbolt keeps every value put until the
// commit, then copies the pages it dirtied. At 16 MiB a 100k ingest's peak
// anonymous memory was 210-237 MiB against 164 with a commit per document.
var (
	groupMaxDocs        = 512
	groupMaxBytes int64 = 4 << 20
	groupMaxAge         = time.Second
)

// group is a Writes' documents waiting for their commit.
type group struct {
	be      BatchPutter
	flushMu sync.Mutex // one commit at a time, in the order documents came

	mu      sync.Mutex // guards what follows
	items   []store.PutItem
	bytes   int64
	byPath  map[string]*store.Document // waiting or being committed
	byID    map[string]*store.Document
	timer   *time.Timer
	failed  error // the commits that failed, joined
	onStore func(items []store.PutItem)
}

// GroupCommits makes Put hold a document that replaces none stored (a new
// path and a new content) and commit such documents together, in one
// transaction per groupMaxDocs documents, groupMaxBytes of them or
// groupMaxAge, whichever comes first; Finish commits the last group. Put
// then returns before the commit, with a PutResult that holds nothing (a
// new document removes no passage), and DocumentByPath and DocumentInfo
// answer for the documents held. A commit that fails is retried one
// document at a time, and what still fails is logged and returned by
// Finish. A document that replaces another is committed at once, after the
// group, as before. Without a backend that stores in batches (BatchPutter)
// it does nothing. Call it before the first Put.
func (w *Writes) GroupCommits() {
	if w.lib.caps.batch == nil {
		return
	}
	w.group = &group{be: w.lib.caps.batch, byPath: map[string]*store.Document{}, byID: map[string]*store.Document{},
		onStore: w.forget}
}

// held returns the document held for a commit at path (byPath) or with id.
func (g *group) held(path, id string) *store.Document {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if path != "" {
		return g.byPath[path]
	}
	return g.byID[id]
}

// replaces reports whether doc would replace a document stored or held: one
// at its path or with its id. Errors are the backend's, other than not
// found.
func (w *Writes) replaces(ctx context.Context, doc *store.Document) (bool, error) {
	if w.group.held(doc.SourcePath, "") != nil || w.group.held("", doc.ID) != nil {
		return true, nil
	}
	if doc.SourcePath != "" {
		_, err := w.lib.be.DocumentByPath(ctx, doc.SourcePath)
		if err == nil || !errors.Is(err, store.ErrNotFound) {
			return true, ignoreNotFound(err)
		}
	}
	_, err := w.lib.be.Document(ctx, doc.ID, false)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return true, ignoreNotFound(err)
	}
	return false, nil
}

func ignoreNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// hold adds it to the group, and commits the group when it is full.
func (w *Writes) hold(it store.PutItem) {
	g := w.group
	info := *it.Doc
	info.Text = ""
	g.mu.Lock()
	g.items = append(g.items, it)
	g.bytes += itemSize(it)
	if it.Doc.SourcePath != "" {
		g.byPath[it.Doc.SourcePath] = &info
	}
	g.byID[it.Doc.ID] = &info
	full := len(g.items) >= groupMaxDocs || g.bytes >= groupMaxBytes
	if !full && g.timer == nil {
		g.timer = time.AfterFunc(groupMaxAge, func() { g.commit(context.Background(), w.lib.opts.Logger.Warn) })
	}
	g.mu.Unlock()
	if full {
		g.commit(context.Background(), w.lib.opts.Logger.Warn)
	}
}

// itemSize is what a held document keeps in memory, about.
func itemSize(it store.PutItem) int64 {
	n := int64(len(it.Original)) + int64(len(it.Doc.Text))
	for i := range it.Chunks {
		n += int64(len(it.Chunks[i].Text)) + 4*int64(len(it.Vectors[i]))
	}
	return n
}

// commit stores the documents held, in one transaction; when that fails,
// one at a time, logging (warn) and keeping each failure. It is safe for
// concurrent use and does nothing on a nil or empty group.
func (g *group) commit(ctx context.Context, warn func(msg string, args ...any)) {
	if g == nil {
		return
	}
	g.flushMu.Lock()
	defer g.flushMu.Unlock()
	g.mu.Lock()
	items := g.items
	g.items, g.bytes = nil, 0
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
	g.mu.Unlock()
	if len(items) == 0 {
		return
	}
	stored := items
	if _, err := g.be.PutBatch(ctx, items); err != nil {
		stored = nil
		for _, it := range items {
			if _, err := g.be.PutBatch(ctx, []store.PutItem{it}); err != nil {
				warn("could not store a document", "path", it.Doc.SourcePath, "err", err)
				g.mu.Lock()
				g.failed = errors.Join(g.failed, fmt.Errorf("%s: %w", it.Doc.SourcePath, err))
				g.mu.Unlock()
				continue
			}
			stored = append(stored, it)
		}
	}
	g.onStore(stored)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, it := range items {
		if d := g.byPath[it.Doc.SourcePath]; d != nil && d.ID == it.Doc.ID {
			delete(g.byPath, it.Doc.SourcePath)
		}
		delete(g.byID, it.Doc.ID)
	}
}

// finish commits the last group and returns every failed commit's error.
func (g *group) finish(ctx context.Context, warn func(msg string, args ...any)) error {
	if g == nil {
		return nil
	}
	g.commit(ctx, warn)
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failed
}
