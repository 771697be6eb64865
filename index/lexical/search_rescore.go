package lexical

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// Rescoring a passage from its own packed terms: how the pruned search
// (search_prune.go) completes the partial sums of the passages that could
// still reach the results, without reading the lists it skipped.

// remaining lists the term ids of the cursors from on with their cursor
// indexes, by term id (the order of a passage's packed terms), for rescore.
func (sc *scratch) remaining(from int) {
	sc.qterms = sc.qterms[:0]
	for i := from; i < len(sc.cursors); i++ {
		sc.qterms = append(sc.qterms, qterm{term: sc.cursors[i].term, cursor: i})
	}
	slices.SortFunc(sc.qterms, func(a, b qterm) int { return cmp.Compare(a.term, b.term) })
}

// qterm is a query term's id and the index of its cursor.
type qterm struct {
	term   uint32
	cursor int
}

// rescore is the exact score of slot s whose lists before cursor from were
// read into partial sum a = sc.acc[s] (0 when none held it): a plus the
// contributions of the remaining query terms the passage holds, read from
// its packed terms (sc.remaining(from) lists them) and added in cursor
// order, as exhaustive adds them.
func (ix *Index) rescore(sc *scratch, s uint32, bm bm25, from int) Result {
	d := &ix.docs[s]
	sc.rescored++
	b, term, q, qt := d.terms, uint32(0), 0, sc.qterms
	// The format of packTerms, decoded by index with one- and two-byte fast
	// paths (term deltas are mostly two bytes, tfs one): binary.Uvarint is
	// not inlined, and this loop is most of a rescore. It stops after the
	// last remaining term.
	for pos := 0; pos < len(b) && q < len(qt); {
		dt := uint32(b[pos])
		switch {
		case dt < 0x80:
			pos++
		case pos+1 < len(b) && b[pos+1] < 0x80:
			dt, pos = dt&0x7f|uint32(b[pos+1])<<7, pos+2
		default:
			v, n := binary.Uvarint(b[pos:])
			dt, pos = uint32(v), pos+n
		}
		if pos >= len(b) { // cut short: Load checks the segment's, so never
			break
		}
		tf := uint32(b[pos])
		if tf < 0x80 {
			pos++
		} else {
			v, n := binary.Uvarint(b[pos:])
			tf, pos = uint32(v), pos+n
		}
		term += dt
		for q < len(qt) && qt[q].term < term {
			q++
		}
		if q < len(qt) && qt[q].term == term {
			c := qt[q].cursor
			sc.contrib[c] = float32(sc.cursors[c].w * sc.sat.get(bm, tf, d.length))
			q++
		}
	}
	sum := max(sc.acc[s], 0) // -1 marks a passage rescored already
	for i := from; i < len(sc.contrib); i++ {
		if c := sc.contrib[i]; c != 0 {
			sum += c
			sc.contrib[i] = 0
		}
	}
	return Result{ID: d.id, Score: sum}
}
