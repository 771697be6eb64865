package embedded

import (
	"log/slog"
	"time"

	"github.com/mcpvec/mcpvec/index"
	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/store"
)

// retokenizeEvery is how often a re-tokenising open reports its progress.
const retokenizeEvery = 2 * time.Second

// retokenizing wraps text, the passage reader of a lexical load, so that
// when the index in kv was saved by other word rules (lexical.Outdated:
// an older mcpvec; the load tokenises every passage again, once, and a
// writable open saves the index) the open says so on logger, reports its
// progress every retokenizeEvery, and retokenizing returns true. It
// returns text itself and false otherwise. The wrapper is called from one
// goroutine, as the load calls it.
func retokenizing(tx *store.Tx, kv index.KV, logger *slog.Logger, text func(uint64) (string, error)) (func(uint64) (string, error), bool) {
	old, outdated := lexical.Outdated(kv)
	if !outdated {
		return text, false
	}
	total := 0
	for range tx.ChunkSeqs() {
		total++
	}
	logger.Info("re-indexing the library's words once: it was indexed by older word rules", "from", old, "passages", total)
	start, last, done := time.Now(), time.Now(), 0
	return func(seq uint64) (string, error) {
		done++
		if time.Since(last) >= retokenizeEvery {
			last = time.Now()
			logger.Info("re-indexing words", "done", done, "of", total, "elapsed", time.Since(start).Round(time.Second))
		}
		if done == total {
			logger.Info("re-indexed words", "passages", total, "took", time.Since(start).Round(time.Millisecond))
		}
		return text(seq)
	}, true
}
