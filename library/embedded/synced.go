package embedded

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/mcpvec/mcpvec/library"

	"github.com/mcpvec/mcpvec/store"
)

// AuxIndexed is the aux bucket in which the embedded backend records, with
// every index Save, the store's write generation (store.Totals) its indexes
// reflect; at open, a record equal to the store's generation means no
// write was missed, so the BM25 index loads without walking the passages.
const AuxIndexed = "indexed"

var indexedKey = []byte("generation")

// genMark tracks the store generation the in-memory indexes reflect: the
// highest generation up to which every write has been applied. Writes may
// be applied out of order (each Put commits, then indexes); a generation
// applied ahead of a missing one waits until the gap closes, and a write
// never applied (its generation unknown) holds the mark back for good,
// which only means the next open walks the passages. Safe for concurrent
// use.
//
// A Save whose transaction fails after the indexes handed over their
// changes (lexical.Index.Save forgets what it wrote) leaves the persisted
// indexes possibly short of writes that no later Save writes again: lose
// marks that, and from then on the mark is 0, so a Save records "not in
// step" and the next open walks the passages and repairs.
type genMark struct {
	mu    sync.Mutex
	done  uint64
	ahead map[uint64]bool
	lost  bool
}

// lose notes a failed index Save (see genMark).
func (m *genMark) lose() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lost = true
}

// start sets the mark to the generation the loaded indexes reflect.
func (m *genMark) start(gen uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done, m.ahead = gen, map[uint64]bool{}
}

// applied notes that the write numbered gen (0: none) is in the indexes.
func (m *genMark) applied(gen uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if gen <= m.done || m.ahead == nil {
		return
	}
	m.ahead[gen] = true
	for m.ahead[m.done+1] {
		delete(m.ahead, m.done+1)
		m.done++
	}
}

// upTo is the generation up to which every write is in the indexes, lost
// or not (value is what a Save may record).
func (m *genMark) upTo() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.done
}

// value is the generation every applied write up to which is in the
// indexes, or 0 once an index Save was lost.
func (m *genMark) value() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lost {
		return 0
	}
	return m.done
}

// indexedGen reads the store's generation and the one the persisted
// indexes were saved at; synced is true when they are equal (no write
// since the last Save).
func indexedGen(tx *store.Tx) (gen uint64, synced bool, err error) {
	gen, ok := tx.Generation()
	if !ok {
		return 0, false, nil
	}
	saved, ok, err := savedGen(tx)
	return gen, ok && saved == gen, err
}

// savedGen reads the generation the persisted indexes were saved at; ok
// is false when none is recorded.
func savedGen(tx *store.Tx) (gen uint64, ok bool, err error) {
	kv, err := tx.Aux(AuxIndexed)
	if err != nil {
		return 0, false, err
	}
	v := kv.Get(indexedKey)
	if len(v) != 8 {
		return 0, false, nil
	}
	return binary.BigEndian.Uint64(v), true, nil
}

// putIndexedGen records that the persisted indexes reflect gen; 0 records
// that they may not be in step with the store (indexedGen then reports
// synced only for a library never written).
func putIndexedGen(tx *store.Tx, gen uint64) error {
	kv, err := tx.Aux(AuxIndexed)
	if err != nil {
		return err
	}
	return kv.Put(indexedKey, binary.BigEndian.AppendUint64(nil, gen))
}

// Summary reads the store's totals and the first 20 documents' titles,
// instead of every document record (seconds at a million passages);
// ok is false for a library that predates the totals (Summarizer).
func (l *Backend) Summary(context.Context) (library.Summary, bool, error) {
	t, ok, err := l.db.Totals()
	if err != nil || !ok {
		return library.Summary{}, false, err
	}
	docs, err := l.db.FirstDocuments(library.SummaryTitles)
	if err != nil {
		return library.Summary{}, false, err
	}
	s := library.Summary{Documents: t.Documents, Chunks: t.Passages, Pages: t.Pages}
	for _, d := range docs {
		s.Titles = append(s.Titles, d.Title)
	}
	return s, true, nil
}
