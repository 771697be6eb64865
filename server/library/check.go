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
}

// Check verifies the library's consistency rule: the store's own check
// passes, every passage has a vector, and the lexical index (and, once an
// embedder is recorded, the vector index) holds exactly the passages. Errors
// are failures to read; what it finds is in Health.
func (l *Library) Check(ctx context.Context) (Health, error) { return l.be.Check(ctx) }
