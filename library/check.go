package library

import (
	"context"

	"github.com/mcpvec/mcpvec/store"
)

// Health is what Check found.
type Health struct {
	Meta  store.Meta
	Stats store.Stats
	Index IndexStats
	// Problems is the store's own check (documents whose passages are
	// incomplete, …), nil when it found none.
	Problems error
	// Consistent: no problems, every passage has a vector, and the index
	// sizes equal the passage count.
	Consistent bool
	// Writing (Overview only): writes kept landing while it read, for as
	// long as it waits, so the store's counts and the indexes' may differ
	// by the writes in flight and Consistent is no finding either way.
	Writing bool
}

// Check verifies the library's consistency rule: the store's own check
// passes, every passage has a vector, and the lexical index (and, once an
// embedder is recorded, the vector index) holds exactly the passages. Errors
// are failures to read; what it finds is in Health.
func (l *Library) Check(ctx context.Context) (Health, error) { return l.be.Check(ctx) }

// Overview is Check without the store's record-by-record check, for a quick
// look (`mcpvec info`): the counts come from the store's totals, and
// Consistent says only that the indexes hold as many passages as the store
// and that every passage has a vector. A backend with no quicker way
// (no Overviewer, as Weaviate) runs Check. Problems stays nil; Check finds damage. It is
// safe beside writes: a write stored but not yet in the indexes is waited
// for (up to 200 ms), not reported as a mismatch; when writes keep landing
// that long, the reading says so (Health.Writing).
func (l *Library) Overview(ctx context.Context) (Health, error) {
	if l.caps.overview != nil {
		return l.caps.overview.Overview(ctx)
	}
	return l.be.Check(ctx)
}
