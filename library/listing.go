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
