package embed

import (
	"context"
	"fmt"
)

// HashProvider is the provider name of the offline embedder (Hash), and
// the embedder of an identity that names none.
const HashProvider = "hash"

// hashProvider registers the offline embedder: local, lexical-grade (see
// library.OptionsFor), one model; few large batches, since recomputing is
// cheaper than the transaction of a commit.
var hashProvider = Provider{
	Name: HashProvider,
	Open: openHash,
	Traits: func(Identity) Traits {
		return Traits{Local: true, LexicalGrade: true, OneModel: true, Batch: 1024, Parallel: 1}
	},
}

// openHash builds the offline embedder of id's dimensions (0: the default).
// A library built with hash-v2 (before unspaced scripts were cut into
// bigrams) keeps hash-v2, so its vectors still match its queries; `mcpvec
// reindex --embedder hash` moves it to the current model. It refuses an
// identity of another model: a library built by another version of the
// hashing, whose vectors this one cannot match.
func openHash(_ context.Context, id Identity, _ Options) (Embedder, error) {
	cfg := DefaultHashConfig()
	if id.Dimensions > 0 {
		cfg.Dimensions = id.Dimensions
	}
	h := NewHash(cfg)
	if v2 := newHash(cfg, 2); id.Model == v2.model {
		return v2, nil
	}
	if id.Model != "" && id.Model != h.model {
		return nil, fmt.Errorf("the library was built with offline embedder %q, this mcpvec has %q: run `mcpvec reindex --embedder hash`", id.Model, h.model)
	}
	return h, nil
}
