package lexical

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"
	"maps"
	"slices"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/index"
)

// LoadStats tells what Load did.
type LoadStats struct {
	Loaded    int // passages restored from their stored term records
	Tokenized int // passages tokenised: record missing, stale or unreadable
	Dropped   int // records whose passage no longer exists (deleted by the next Save)
	Corrupt   int // records, dictionary chunks or segments that could not be decoded (repaired)
	// Reason says why the persisted segment could not be used (its
	// passages were tokenised again), nil when it could or there was none.
	Reason error
	// Rewrite is true when the next Save writes a new segment: the store
	// held the older per-passage format, a damaged or outdated segment, or
	// many changes beside it.
	Rewrite bool
}

// Key layout inside the bucket: passage records and tombstones under their
// 8-byte big-endian id; the tokenizer version under metaKey; the term
// dictionary as append-only chunks under dictPrefix + 4-byte big-endian
// first term id; the segment under segMetaKey and segChunkPrefix
// (persist_segment.go). The prefixes are 13 bytes and longer keys, so they never
// collide with passage keys.
var (
	metaKey    = []byte("\x00lexical-meta")
	dictPrefix = []byte("\x00lexical-dict")
)

const recordVersion = 2

// tombstone is the whole record of a passage deleted while a segment holds
// it (any value below recordVersion reads as unusable to older readers).
const tombstone = 0

// A new segment is written when the records and tombstones beside it would
// exceed max(segmentMin, segment passages / segmentDelta): see doc.go.
// Records cost Load several times what segment rows do (see doc.go), so
// they are folded in early.
var (
	segmentMin   = 1024
	segmentDelta = 16
)

// Save writes what changed since the last Save or Load into kv: new
// dictionary terms as one chunk, one record per added passage (its term ids
// and frequencies) and a deletion or tombstone per removed passage; or, once
// those records would outnumber a sixteenth of the segment's passages (see
// doc.go), a new segment holding every passage in place of all records. On
// error nothing is forgotten, so Save in a new transaction writes it all
// again. If the caller's transaction is rolled back after Save returned
// nil, the next Load repairs the difference from the passages (records
// referring to a missing dictionary chunk are treated as stale). Save takes
// the write lock; it is safe for concurrent use. It returns errors from kv,
// wrapped.
func (ix *Index) Save(kv index.KV) error {
	ix.lock()
	defer ix.mu.Unlock()
	if ix.pre != nil || ix.segmentDueLocked() {
		return ix.saveSegmentLocked(kv)
	}
	if err := ix.saveDictLocked(kv); err != nil {
		return err
	}
	if err := ix.saveDocsLocked(kv); err != nil {
		return err
	}
	if ix.hasSeg {
		ix.deltaKeys += len(ix.dirty) + len(ix.removed)
	} else {
		ix.deltaKeys = max(0, ix.deltaKeys+len(ix.dirty)-len(ix.removed))
	}
	ix.savedLocked()
	return nil
}

// Unsaved reports whether Save would write anything: a passage added or
// removed, a dictionary term, the tokenizer version or a new segment due
// (after Fold, or a Load that asks for one). A caller may skip a Save, and
// its transaction, while it reports false. It is safe for concurrent use.
func (ix *Index) Unsaved() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return !ix.metaOK || len(ix.staleKeys) > 0 || len(ix.termStr) > ix.savedTerms ||
		len(ix.dirty) > 0 || len(ix.removed) > 0 || ix.segmentDueLocked()
}

// Fold makes the next Save write a new segment in place of the records
// and tombstones beside the current one once there are more than
// segmentMin of them, rather than waiting until they reach a sixteenth of
// the segment. A command that ends a long write calls it before its last
// Save: Load pays for records beyond their number, since adding their
// postings copies every list they touch, which is most of the index once
// a few thousand passages are records (a million passages with 2% in
// records: 355 MB copied at every open; docs/benchmarks/lexical.md#fold-at-ingest). Fewer
// than segmentMin stay records: a small ingest into a large library then
// does not rewrite it. It is safe for concurrent use.
func (ix *Index) Fold() {
	ix.lock()
	defer ix.mu.Unlock()
	if ix.deltaKeys+len(ix.dirty)+len(ix.removed) > segmentMin {
		ix.rewrite = true
	}
}

// segmentDueLocked reports whether the next Save writes a segment.
func (ix *Index) segmentDueLocked() bool {
	pending := ix.deltaKeys + len(ix.dirty) + len(ix.removed)
	return ix.rewrite || pending > max(segmentMin, ix.segDocs/segmentDelta)
}

// saveDictLocked writes the tokenizer version when the KV lacks it, deletes
// dictionary chunks Load did not use and writes the new terms as a chunk.
func (ix *Index) saveDictLocked(kv index.KV) error {
	if !ix.metaOK {
		if err := kv.Put(slices.Clone(metaKey), []byte(analysis.TokenizerVersion)); err != nil {
			return fmt.Errorf("save lexical meta: %w", err)
		}
	}
	for _, k := range ix.staleKeys {
		if err := kv.Delete(k); err != nil {
			return fmt.Errorf("delete stale lexical dictionary chunk: %w", err)
		}
	}
	if n := len(ix.termStr); n > ix.savedTerms {
		if err := kv.Put(dictKey(ix.savedTerms), encodeTerms(ix.termStr[ix.savedTerms:])); err != nil {
			return fmt.Errorf("save lexical dictionary: %w", err)
		}
	}
	return nil
}

// savedLocked notes that a Save completed.
func (ix *Index) savedLocked() {
	ix.metaOK, ix.staleKeys, ix.savedTerms = true, nil, len(ix.termStr)
	clear(ix.removed)
	clear(ix.dirty)
}

// saveDocsLocked writes records in key order: bbolt fills pages in order
// then, instead of splitting them at random (80 s against a few for 100k
// fresh records). A passage removed while a segment is stored leaves a
// tombstone, since the segment still holds it.
func (ix *Index) saveDocsLocked(kv index.KV) error {
	for _, id := range slices.Sorted(maps.Keys(ix.removed)) {
		var err error
		if ix.hasSeg {
			err = kv.Put(docKey(id), []byte{tombstone})
		} else {
			err = kv.Delete(docKey(id))
		}
		if err != nil {
			return fmt.Errorf("delete lexical record %d: %w", id, err)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ix.dirty)) {
		s, ok := ix.slots()[id]
		if !ok {
			continue
		}
		if err := kv.Put(docKey(id), encodeDoc(&ix.docs[s])); err != nil {
			return fmt.Errorf("put lexical record %d: %w", id, err)
		}
	}
	return nil
}

// saveSegmentLocked replaces the segment and every record and tombstone
// with a new segment of all live passages. A segment's slots are all live,
// so deleted slots are compacted away first; then the passages are
// reordered (reorder.go).
func (ix *Index) saveSegmentLocked(kv index.KV) error {
	ix.segSaves++ // counted if it fails too: the KV's segment may have changed
	if done, err := ix.savePrewrittenLocked(kv); done {
		return err
	}
	ix.foldLocked()
	if err := ix.saveDictLocked(kv); err != nil {
		return err
	}
	if err := clearPassages(kv); err != nil {
		return err
	}
	m, err := ix.writeSegmentLocked(kv)
	if err != nil {
		return err
	}
	if err := kv.Put(slices.Clone(segMetaKey), m.encode()); err != nil {
		return fmt.Errorf("put lexical segment manifest: %w", err)
	}
	ix.savedLocked()
	ix.hasSeg, ix.segDocs, ix.deltaKeys, ix.rewrite = true, len(ix.docs), 0, false
	return nil
}

// clearPassages deletes every record, tombstone and segment key, found by
// walking the KV rather than trusted from memory: a rolled-back Save may
// have left keys the index does not know of.
func clearPassages(kv index.KV) error {
	err := index.DeleteMatching(kv, func(k []byte) bool {
		return len(k) == 8 || bytes.HasPrefix(k, segChunkPrefix) || bytes.Equal(k, segMetaKey)
	})
	if err != nil {
		return fmt.Errorf("clear lexical records: %w", err)
	}
	return nil
}

// Load rebuilds an index from what Save wrote into kv, reconciled with
// texts, the passages that exist now (the source of truth): a passage whose
// record or segment row is missing, unreadable, written by another
// TokenizerVersion or whose text changed (checked by CRC-32C) is tokenised
// again; one stored but absent from texts is dropped. Only the difference is
// tokenised; the next Save writes the repairs. kv is only read. Load returns
// errors from kv.ForEach, wrapped; damaged records and segments are
// repaired (LoadStats says so), not reported as errors.
func Load(kv index.KV, cfg Config, texts iter.Seq2[uint64, string]) (*Index, LoadStats, error) {
	ix, recs, st, err := readPersisted(kv, cfg)
	if err != nil {
		return nil, st, err
	}
	for id, text := range texts {
		if !ix.reuse(id, true, checksum(text), recs, &st) {
			ix.Add(id, text)
			st.Tokenized++
		}
	}
	ix.finishLoad(recs, &st)
	return ix, st, nil
}

// LoadIDs is Load for a caller whose records cannot drift from its
// passages' text: it never changes the text under an id. It reconciles by
// id alone, so start-up reads no passage text, except through text for a
// passage the KV does not hold usably (missing, unreadable, from another
// TokenizerVersion, or its segment damaged): that one is tokenised. A
// passage stored but absent from ids is dropped. It returns errors from
// kv.ForEach and from text, wrapped.
func LoadIDs(kv index.KV, cfg Config, ids iter.Seq[uint64], text func(id uint64) (string, error)) (*Index, LoadStats, error) {
	return loadIDs(kv, cfg, ids, text, false)
}

// LoadSynced is LoadIDs for a caller that knows the KV is in step with its
// passages: it saved the index after the last change to them (for
// instance, it records the store's write generation with every Save and
// compared it). The passages are then the ones the KV holds, so ids is
// ranged over only when the KV cannot list them itself (its segment is
// damaged or from another TokenizerVersion). Errors are LoadIDs's.
func LoadSynced(kv index.KV, cfg Config, ids iter.Seq[uint64], text func(id uint64) (string, error)) (*Index, LoadStats, error) {
	return loadIDs(kv, cfg, ids, text, true)
}

func loadIDs(kv index.KV, cfg Config, ids iter.Seq[uint64], text func(id uint64) (string, error), synced bool) (*Index, LoadStats, error) {
	ix, recs, st, err := readPersisted(kv, cfg)
	if err != nil {
		return nil, st, err
	}
	if synced && ix.metaOK && st.Reason == nil {
		ids = slices.Values(ix.keepSegment(recs, &st))
	}
	for id := range ids {
		if ix.reuse(id, false, 0, recs, &st) {
			continue
		}
		t, err := text(id)
		if err != nil {
			return nil, st, fmt.Errorf("load lexical: text of passage %d: %w", id, err)
		}
		ix.Add(id, t)
		st.Tokenized++
	}
	ix.finishLoad(recs, &st)
	ix.buildSlotsSoon()
	return ix, st, nil
}

// keepSegment keeps, for a KV in step with its passages, every passage of
// the segment that no record replaces or tombstone deletes, as reuse
// would, by slot: no lookup by id. It returns the ids still to be reused:
// the segment's passages that a record replaces, in slot order, then those
// of the other records, in id order (the order LoadIDs gives them slots).
func (ix *Index) keepSegment(recs map[uint64]record, st *LoadStats) []uint64 {
	var ids []uint64
	for s := range ix.nbase {
		r, ok := recs[ix.docs[s].id]
		switch {
		case !ok:
			ix.seen[s] = true
			st.Loaded++
		case !r.tomb:
			ids = append(ids, ix.docs[s].id)
		}
	}
	if len(recs) == 0 {
		return ids
	}
	seg := len(ids)
	for id, r := range recs {
		if _, inSeg := ix.slots()[id]; !r.tomb && !inSeg {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids[seg:])
	return ids
}

// readPersisted reads the dictionary, the segment and every record and
// tombstone beside it. The index it returns is loading: no compaction, so
// the segment's passages keep their slots until finishLoad.
func readPersisted(kv index.KV, cfg Config) (*Index, map[uint64]record, LoadStats, error) {
	ix := New(cfg)
	ix.loading = true
	var st LoadStats
	if string(kv.Get(metaKey)) == analysis.TokenizerVersion {
		ix.metaOK = true
		st.Corrupt += ix.loadDictionary(kv)
		ix.hasSeg, st.Reason = ix.loadSegmentLocked(kv)
		if st.Reason != nil {
			st.Corrupt++
		}
	} else {
		ix.hasSeg = kv.Get(segMetaKey) != nil
		ix.rewrite = ix.hasSeg
	}
	ix.rewrite = ix.rewrite || st.Reason != nil
	ix.segDocs, ix.nbase = len(ix.docs), len(ix.docs)
	ix.seen = make([]bool, len(ix.docs))
	ix.deferPost = len(ix.docs) == 0 // no segment: invert everything at the end
	recs, err := ix.readRecords(kv, &st)
	if err != nil {
		return nil, nil, st, err
	}
	ix.docs = slices.Grow(ix.docs, len(recs)) // room for the records' passages
	return ix, recs, st, nil
}

// readRecords reads every passage record and tombstone, noting stale
// dictionary chunks.
func (ix *Index) readRecords(kv index.KV, st *LoadStats) (map[uint64]record, error) {
	recs := make(map[uint64]record)
	var sl slab
	err := kv.ForEach(func(k, v []byte) error {
		switch {
		case len(k) == 8:
			ix.deltaKeys++
			var r record
			switch {
			case len(v) == 1 && v[0] == tombstone:
				r.tomb = true
			case ix.metaOK:
				var ok bool
				if r, ok = ix.decodeDoc(v, &sl); !ok {
					st.Corrupt++
				}
			}
			recs[binary.BigEndian.Uint64(k)] = r
		case bytes.HasPrefix(k, dictPrefix) && !ix.inChain(k):
			ix.staleKeys = append(ix.staleKeys, slices.Clone(k))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load lexical records: %w", err)
	}
	return recs, nil
}

// reuse restores passage id from its record, or confirms it in the
// segment, without tokenising; with check, the record or row must carry
// sum, the CRC-32C of the passage's text. It reports false when id must be
// tokenised.
func (ix *Index) reuse(id uint64, check bool, sum uint32, recs map[uint64]record, st *LoadStats) bool {
	if r, ok := recs[id]; ok {
		delete(recs, id)
		if r.terms == nil || (check && r.sum != sum) {
			return false
		}
		ix.deleteLocked(id)
		ix.insertLocked(id, r.sum, r.length, r.nterms, r.terms)
		st.Loaded++
		return true
	}
	s, ok := ix.slots()[id]
	if !ok || int(s) >= ix.nbase || (check && ix.docs[s].sum != sum) {
		return false
	}
	ix.seen[s] = true
	st.Loaded++
	return true
}

// finishLoad drops the segment's passages and the records no passage
// claimed (the next Save deletes them; a tombstone already says so), then
// builds the postings, or compacts those read from a segment or adds to
// them the postings of the passages inserted beside it.
func (ix *Index) finishLoad(recs map[uint64]record, st *LoadStats) {
	for s := range ix.nbase {
		d := &ix.docs[s]
		if ix.seen[s] || !d.alive {
			continue
		}
		id := d.id
		ix.deleteLocked(id)
		if _, ok := recs[id]; !ok {
			ix.removed[id] = struct{}{}
			st.Dropped++
		}
	}
	for id, r := range recs {
		if !r.tomb {
			ix.removed[id] = struct{}{}
			st.Dropped++
		}
	}
	nbase := ix.nbase
	ix.loading, ix.seen, ix.nbase = false, nil, 0
	switch {
	case ix.deferPost:
		ix.deferPost = false
		ix.invert()
	case ix.deadPost > 4096 && ix.deadPost > ix.livePost:
		ix.compactLocked()
	case len(ix.docs) > nbase:
		ix.appendPending(nbase)
	}
	st.Rewrite = ix.segmentDueLocked()
}

// StoredVersion returns the analysis.TokenizerVersion the index in kv was
// saved with, or "" when kv holds none. When it is neither "" nor the
// current version, the next Load tokenises every passage again. It only
// reads kv and is safe for concurrent use with other readers of kv.
func StoredVersion(kv index.KV) string { return string(kv.Get(metaKey)) }

// Outdated reports whether kv holds an index saved by other word rules
// than this analysis.TokenizerVersion, which the next Load tokenises
// again whole, and the version it was saved with. It only reads kv.
func Outdated(kv index.KV) (stored string, outdated bool) {
	stored = StoredVersion(kv)
	return stored, stored != "" && stored != analysis.TokenizerVersion
}
