package library

import (
	"context"

	"github.com/mcpvec/mcpvec/store"
)

// Listing returns every document, without text, for a page that lists the
// library: the list is kept between calls (the one searches with operators
// filter by) and read from the backend again only once its documents
// version changed, which for the embedded backend follows the store's
// write generation, so a write committed by any process shows on the next
// call; a backend that cannot tell its version (Weaviate) is read again
// after docListTTL. The documents are shared between callers and must not
// be modified; the same slice comes back while nothing changed, which a
// caller may use to keep what it derives from it. It is safe for
// concurrent use; errors are the backend's (ctx's when it ends first).
func (l *Library) Listing(ctx context.Context) ([]*store.Document, error) {
	return l.documents(ctx)
}

// RowLister is a Backend that keeps a short row for each document (the
// embedded backend's store: store.Row): it lists them a page at a time in
// title order, reading only that page and its totals (TitlePage), all of
// them (AllRows), and tells when any changed (RowsVersion). ok is false
// when it cannot for this library (a file of an older schema opened
// read-only); the caller then uses Listing.
type RowLister interface {
	TitlePage(ctx context.Context, from, n int, desc bool) (p store.RowPage, ok bool, err error)
	AllRows(ctx context.Context) (p store.RowPage, ok bool, err error)
	RowsVersion(ctx context.Context) (v uint64, ok bool, err error)
}

// TitlePage returns the documents from..from+n-1 (from 0) in title order
// (case folded, ties by id; desc reverses both), with the library's totals
// and media types, as of one moment: a page read after a write shows it.
// ok is false when the backend cannot page (Weaviate, an old file opened
// read-only): Listing has them all. It is safe for concurrent use; errors
// are the backend's.
func (l *Library) TitlePage(ctx context.Context, from, n int, desc bool) (store.RowPage, bool, error) {
	p, ok := l.be.(RowLister)
	if !ok {
		return store.RowPage{}, false, nil
	}
	return p.TitlePage(ctx, from, n, desc)
}

// Rows returns every document's row, in id order, with the library's
// totals, as of one moment; ok is false as for TitlePage. It is safe for
// concurrent use; errors are the backend's.
func (l *Library) Rows(ctx context.Context) (store.RowPage, bool, error) {
	p, ok := l.be.(RowLister)
	if !ok {
		return store.RowPage{}, false, nil
	}
	return p.AllRows(ctx)
}

// RowsVersion returns a number that changes whenever any document's row
// does, whichever process wrote it, so that what a caller derived from
// Rows (at RowPage.Version) may be kept until then; ok is false as for
// TitlePage. It is a short read; safe for concurrent use.
func (l *Library) RowsVersion(ctx context.Context) (uint64, bool, error) {
	p, ok := l.be.(RowLister)
	if !ok {
		return 0, false, nil
	}
	return p.RowsVersion(ctx)
}
