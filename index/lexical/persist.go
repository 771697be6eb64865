package lexical

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"
	"maps"
	"slices"
)

// KV is the key/value bucket the index persists into, e.g. a bbolt bucket
// inside a transaction. Keys and values handed to callbacks or returned by
// Get are valid only during the call; the index copies what it keeps and
// passes Put freshly allocated slices it never touches again.
type KV interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	ForEach(fn func(key, value []byte) error) error
}

// LoadStats tells what Load did.
type LoadStats struct {
	Loaded    int // passages restored from their stored term records
	Tokenized int // passages tokenised: record missing, stale or unreadable
	Dropped   int // records whose passage no longer exists (deleted by the next Save)
	Corrupt   int // records or dictionary chunks that could not be decoded (repaired)
}

// Key layout inside the bucket: passage records under their 8-byte
// big-endian id; the tokenizer version under metaKey; the term dictionary
// as append-only chunks under dictPrefix + 4-byte big-endian first term id.
// Both prefixes are 13 bytes and so never collide with passage keys.
var (
	metaKey    = []byte("\x00lexical-meta")
	dictPrefix = []byte("\x00lexical-dict")
)

const recordVersion = 2

// Save writes what changed since the last Save or Load into kv: new
// dictionary terms as one chunk, one record per added passage (its term ids
// and frequencies) and a deletion per removed passage. On error nothing is
// forgotten, so Save in a new transaction writes it all again. If the
// caller's transaction is rolled back after Save returned nil, the next Load
// repairs the difference from the passages (records referring to a missing
// dictionary chunk are treated as stale). Save takes the write lock; it is
// safe for concurrent use. It returns errors from kv, wrapped.
func (ix *Index) Save(kv KV) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.metaOK {
		if err := kv.Put(slices.Clone(metaKey), []byte(TokenizerVersion)); err != nil {
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
	if err := ix.saveDocsLocked(kv); err != nil {
		return err
	}
	ix.metaOK, ix.staleKeys, ix.savedTerms = true, nil, len(ix.termStr)
	clear(ix.removed)
	clear(ix.dirty)
	return nil
}

// saveDocsLocked writes records in key order: bbolt fills pages in order
// then, instead of splitting them at random (80 s against a few for 100k
// fresh records).
func (ix *Index) saveDocsLocked(kv KV) error {
	for _, id := range slices.Sorted(maps.Keys(ix.removed)) {
		if err := kv.Delete(docKey(id)); err != nil {
			return fmt.Errorf("delete lexical record %d: %w", id, err)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(ix.dirty)) {
		s, ok := ix.slot[id]
		if !ok {
			continue
		}
		if err := kv.Put(docKey(id), encodeDoc(&ix.docs[s])); err != nil {
			return fmt.Errorf("put lexical record %d: %w", id, err)
		}
	}
	return nil
}

func docKey(id uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), id)
}

func dictKey(first int) []byte {
	return binary.BigEndian.AppendUint32(slices.Clone(dictPrefix), uint32(first))
}

// encodeTerms lays out a dictionary chunk: count, then (length, bytes) per
// term, all uvarints.
func encodeTerms(terms []string) []byte {
	n := binary.MaxVarintLen32
	for _, t := range terms {
		n += len(t) + binary.MaxVarintLen32
	}
	b := binary.AppendUvarint(make([]byte, 0, n), uint64(len(terms)))
	for _, t := range terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	return b
}

// encodeDoc lays out a passage record: version, CRC-32C of the text, token
// count, term count, then the packed (term id delta, tf) pairs (packTerms).
func encodeDoc(d *docEntry) []byte {
	b := make([]byte, 0, 5+2*binary.MaxVarintLen32+len(d.terms))
	b = append(b, recordVersion)
	b = binary.LittleEndian.AppendUint32(b, d.sum)
	b = binary.AppendUvarint(b, uint64(d.length))
	b = binary.AppendUvarint(b, uint64(d.nterms))
	return append(b, d.terms...)
}

// record is a decoded term record awaiting its passage; terms == nil marks a
// record that must not be used.
type record struct {
	sum    uint32
	length uint32
	nterms uint32
	terms  []byte // packed pairs, copied out of the KV
}

// Load rebuilds an index from what Save wrote into kv, reconciled with
// texts, the passages that exist now (the source of truth): a passage whose
// record is missing, unreadable, written by another TokenizerVersion or whose
// text changed (checked by CRC-32C) is tokenised again; a record without a
// passage is dropped. Only the difference is tokenised; the next Save writes
// the repairs. kv is only read. Load returns errors from kv.ForEach, wrapped;
// damaged records are repaired, not reported as errors.
func Load(kv KV, cfg Config, texts iter.Seq2[uint64, string]) (*Index, LoadStats, error) {
	ix, recs, st, err := readRecords(kv, cfg)
	if err != nil {
		return nil, st, err
	}
	ix.deferPost = true
	for id, text := range texts {
		ix.restore(id, text, recs, &st)
	}
	ix.finishLoad(recs, &st)
	return ix, st, nil
}

// LoadIDs is Load for a caller whose records cannot drift from its
// passages' text: it Saves in the same transaction as it writes passages
// and never changes the text under an id. It reconciles by id alone, so
// start-up reads no passage text, except through text for a passage whose
// record is missing, unreadable or from another TokenizerVersion (that one
// is tokenised). A record without a passage in ids is dropped. It returns
// errors from kv.ForEach and from text, wrapped.
func LoadIDs(kv KV, cfg Config, ids iter.Seq[uint64], text func(id uint64) (string, error)) (*Index, LoadStats, error) {
	ix, recs, st, err := readRecords(kv, cfg)
	if err != nil {
		return nil, st, err
	}
	ix.deferPost = true
	for id := range ids {
		r, ok := recs[id]
		delete(recs, id)
		if ok && r.terms != nil {
			ix.deleteLocked(id)
			ix.insertLocked(id, r.sum, r.length, r.nterms, r.terms)
			st.Loaded++
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
	return ix, st, nil
}

// readRecords reads the dictionary and every passage record, noting stale
// dictionary chunks.
func readRecords(kv KV, cfg Config) (*Index, map[uint64]record, LoadStats, error) {
	ix := New(cfg)
	var st LoadStats
	if string(kv.Get(metaKey)) == TokenizerVersion {
		ix.metaOK = true
		st.Corrupt += ix.loadDictionary(kv)
	}
	recs := make(map[uint64]record)
	var sl slab
	err := kv.ForEach(func(k, v []byte) error {
		switch {
		case len(k) == 8:
			var r record
			if ix.metaOK {
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
		return nil, nil, st, fmt.Errorf("load lexical records: %w", err)
	}
	return ix, recs, st, nil
}

// finishLoad builds the postings and marks the records no passage claimed
// for deletion.
func (ix *Index) finishLoad(recs map[uint64]record, st *LoadStats) {
	ix.deferPost = false
	ix.invert()
	for id := range recs {
		ix.removed[id] = struct{}{}
		st.Dropped++
	}
}

// loadDictionary reads the chain of dictionary chunks, stopping at the first
// gap or damaged chunk, and returns how many damaged chunks it met. Term ids
// equal their position in the chain.
func (ix *Index) loadDictionary(kv KV) (corrupt int) {
	for {
		v := kv.Get(dictKey(len(ix.termStr)))
		if v == nil {
			break
		}
		first := len(ix.termStr)
		if !ix.decodeTerms(v) {
			ix.truncateTerms(first)
			corrupt++
			break
		}
		ix.chain = append(ix.chain, uint32(first))
	}
	ix.savedTerms = len(ix.termStr)
	return corrupt
}

func (ix *Index) decodeTerms(v []byte) bool {
	count, v, ok := uvarint(v)
	if !ok || count > uint64(len(v)) {
		return false
	}
	// Room for the chunk at once: appending term by term regrows the
	// per-term slices (56-byte list headers) many times over.
	n := int(count)
	ix.termStr, ix.df, ix.post = slices.Grow(ix.termStr, n), slices.Grow(ix.df, n), slices.Grow(ix.post, n)
	for range count {
		n, rest, ok := uvarint(v)
		if !ok || n > uint64(len(rest)) {
			return false
		}
		want := uint32(len(ix.termStr))
		if ix.termIDBytesLocked(rest[:n]) != want {
			return false // duplicate term: ids would shift
		}
		v = rest[n:]
	}
	return len(v) == 0
}

// truncateTerms forgets dictionary terms from id first on (only used while
// loading, before any passage refers to them).
func (ix *Index) truncateTerms(first int) {
	for _, t := range ix.termStr[first:] {
		delete(ix.termIDs, t)
	}
	ix.termStr, ix.df, ix.post = ix.termStr[:first], ix.df[:first], ix.post[:first]
}

// inChain reports whether k is a dictionary chunk key that loadDictionary
// used.
func (ix *Index) inChain(k []byte) bool {
	if len(k) != len(dictPrefix)+4 {
		return false
	}
	_, found := slices.BinarySearch(ix.chain, binary.BigEndian.Uint32(k[len(dictPrefix):]))
	return found
}

// decodeDoc validates a passage record and copies out its packed terms
// (into slab). A
// record of another version or referring to unknown terms comes back
// unusable with ok = true; ok = false means it was damaged.
func (ix *Index) decodeDoc(v []byte, slab *slab) (r record, ok bool) {
	if len(v) < 5 || v[0] != recordVersion {
		return record{}, len(v) > 0 && v[0] < recordVersion
	}
	r.sum = binary.LittleEndian.Uint32(v[1:5])
	length, v, ok1 := uvarint(v[5:])
	count, v, ok2 := uvarint(v)
	if !ok1 || !ok2 || count > uint64(len(v)) {
		return record{}, false
	}
	r.length, r.nterms = uint32(length), uint32(count)
	body := v
	term := uint64(0)
	for i := range count {
		delta, rest, ok1 := uvarint(v)
		_, rest, ok2 := uvarint(rest)
		term += delta
		if !ok1 || !ok2 || (delta == 0 && i > 0) {
			return record{}, false
		}
		if term >= uint64(len(ix.termStr)) {
			return record{}, true // unknown term: dictionary chunk lost
		}
		v = rest
	}
	if len(v) != 0 {
		return record{}, false
	}
	if r.terms = slab.copy(body); r.terms == nil {
		r.terms = []byte{} // nil would mark the record unusable
	}
	return r, true
}

// slab hands out copies carved from 1 MiB chunks: one allocation per
// thousands of records instead of one each, and no size-class rounding.
type slab struct{ free []byte }

func (s *slab) copy(b []byte) []byte {
	if len(b) > len(s.free) {
		s.free = make([]byte, max(1<<20, len(b)))
	}
	out := s.free[:len(b):len(b)]
	copy(out, b)
	s.free = s.free[len(b):]
	return out
}

// restore adds one passage from its record when the record matches the
// text, else by tokenising it.
func (ix *Index) restore(id uint64, text string, recs map[uint64]record, st *LoadStats) {
	sum := checksum(text)
	r, ok := recs[id]
	delete(recs, id)
	if ok && r.terms != nil && r.sum == sum {
		ix.deleteLocked(id)
		ix.insertLocked(id, sum, r.length, r.nterms, r.terms)
		st.Loaded++
		return
	}
	ix.Add(id, text)
	st.Tokenized++
}

func uvarint(b []byte) (uint64, []byte, bool) {
	x, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, false
	}
	return x, b[n:], true
}

// termIDBytesLocked is termIDLocked for a byte slice; known terms cost no
// allocation (the compiler elides the string conversion in a map lookup).
func (ix *Index) termIDBytesLocked(b []byte) uint32 {
	if id, ok := ix.termIDs[string(b)]; ok {
		return id
	}
	return ix.termIDLocked(string(b))
}
