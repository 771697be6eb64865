package lexical

import (
	"encoding/binary"
	"slices"

	"github.com/mcpvec/mcpvec/index"
)

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
	tomb   bool   // a tombstone: the passage was deleted
}

// loadDictionary reads the chain of dictionary chunks, stopping at the first
// gap or damaged chunk, and returns how many damaged chunks it met. Term ids
// equal their position in the chain.
func (ix *Index) loadDictionary(kv index.KV) (corrupt int) {
	// Count the terms first (a chunk starts with its count): the map is
	// then made once at its size instead of regrown many times over.
	total := 0
	for {
		v := kv.Get(dictKey(total))
		c, _, ok := uvarint(v)
		if !ok || c > uint64(len(v)) {
			break
		}
		total += int(c)
	}
	ix.termIDs = make(map[string]uint32, total)
	ix.termStr, ix.df, ix.post = make([]string, 0, total), make([]uint32, 0, total), make([]postings, 0, total)
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

// decodeTerms adds a dictionary chunk's terms. They share one string, a
// copy of the chunk: one allocation per chunk rather than per term.
func (ix *Index) decodeTerms(v []byte) bool {
	count, v, ok := uvarint(v)
	if !ok || count > uint64(len(v)) {
		return false
	}
	s, pos := string(v), 0
	for range count {
		n, k := binary.Uvarint(v[pos:])
		if k <= 0 || n > uint64(len(v)-pos-k) {
			return false
		}
		t := s[pos+k : pos+k+int(n)]
		pos += k + int(n)
		id := uint32(len(ix.termStr))
		if ix.termIDs[t] = id; len(ix.termIDs) != int(id)+1 {
			// Duplicate term (ids would shift): give it back its first id.
			ix.termIDs[t] = uint32(slices.Index(ix.termStr, t))
			return false
		}
		ix.termStr, ix.df, ix.post = append(ix.termStr, t), append(ix.df, 0), append(ix.post, postings{})
	}
	return pos == len(v)
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

func uvarint(b []byte) (uint64, []byte, bool) {
	x, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, false
	}
	return x, b[n:], true
}
