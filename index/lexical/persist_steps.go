package lexical

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpvec/mcpvec/index"
)

// Writing a segment in steps. Save writes a new segment into the caller's
// one transaction, and bbolt holds every value put in a transaction until
// it commits, then copies them all into page buffers: a segment of S bytes
// cost the heap up to 2S at that commit, on top of the index (+68 MiB at
// 100k passages, +18-23 MiB in steps; docs/benchmarks/ingest-memory.md). PrewriteSegment
// writes the new segment's chunks ahead of that Save, stepBytes a
// transaction the caller commits, and the Save that follows writes only
// its manifest, records and tombstones for what changed since the steps,
// and deletes the older records and the old chunks left over.
//
// While the chunks are being replaced the manifest reads as damaged
// (rewritingManifest): a Load then (a crash between the steps, another
// process opening the file) ignores the segment and tokenises its
// passages from the store, as for any damaged segment (LoadStats.Reason),
// never mixing chunks of two segments. The format on disk is unchanged.
//
// Passages added or deleted between the steps and the Save (an ingest's
// document writes go on meanwhile) do not undo the steps: the segment
// holds the index's first slots as they were, and the Save writes the rest
// as records and tombstones beside it, as a Save of records does. Once it
// wrote the whole segment again in its one transaction, which during a
// million-passage ingest was most segment writes: spikes of up to 1.7 GB
// (docs/benchmarks/ingest-spikes.md). Only a renumbering of the slots (a
// compaction) makes the steps' segment unusable.

// stepBytes is how much of a segment one step writes (a variable for
// tests).
var stepBytes = 32 << 20

// rewritingManifest is the manifest while a segment's chunks are being
// replaced: not a manifest any version decodes.
var rewritingManifest = []byte("segment being rewritten")

// prewritten is a segment whose chunks are in the KV, its manifest not. It
// holds the index's first m.docs slots as they were when written; whatever
// renumbers slots (compactLocked, applyOrder, resetPassages) drops it.
type prewritten struct {
	m       manifest
	chunks  [3]uint32
	removed int // len(ix.removed) then, for SavePlan
}

// PrewriteSegment writes the segment the next Save would write, when it
// would write one, in steps: each call of step must run write in a
// transaction of its own on the KV Save is given, and commit it. The Save
// that follows writes the manifest, the dictionary and a record or
// tombstone for each passage added or deleted since, and deletes the older
// records and stale chunks; only if slots were renumbered meanwhile (a
// compaction) does it write a whole segment as usual. It takes the write lock
// for its duration, as Save does. On error the KV holds no usable segment
// until the next Save writes one (the index knows it is due); the next
// Load tokenises what it held. Errors are step's and the KV's, wrapped.
func (ix *Index) PrewriteSegment(step func(write func(kv index.KV) error) error) error {
	ix.lock()
	defer ix.mu.Unlock()
	ix.pre = nil
	if !ix.segmentDueLocked() {
		return nil
	}
	ix.foldLocked()
	puts := make(chan kvPut, 4)
	var m manifest
	var werr error
	go func() {
		defer close(puts)
		m, werr = ix.writeSegmentLocked(chanKV(puts))
	}()
	first, more := true, true
	for more {
		err := step(func(kv index.KV) error {
			if first {
				if err := kv.Put(slices.Clone(segMetaKey), rewritingManifest); err != nil {
					return fmt.Errorf("mark lexical segment rewritten: %w", err)
				}
				first = false
			}
			for n := 0; n < stepBytes; {
				p, ok := <-puts
				if !ok {
					more = false
					return nil
				}
				if err := kv.Put(p.k, p.v); err != nil {
					return fmt.Errorf("put lexical segment chunk: %w", err)
				}
				n += len(p.v)
			}
			return nil
		})
		if err != nil {
			for range puts { // let the writer finish
			}
			return err
		}
	}
	if werr != nil {
		return werr
	}
	ix.pre = &prewritten{m: m, removed: len(ix.removed),
		chunks: [3]uint32{chunksOf(m.tablesLen()), chunksOf(m.fwdLen), chunksOf(m.postLen)}}
	return nil
}

// chunksOf is how many chunks a stream of n bytes is cut into.
func chunksOf(n uint64) uint32 {
	return uint32((n + uint64(segChunkSize) - 1) / uint64(segChunkSize))
}

// kvPut is one Put handed from the segment writer to a step.
type kvPut struct{ k, v []byte }

// chanKV is the KV the segment writer puts into during PrewriteSegment: it
// hands each Put to the step in progress. It only takes Puts.
type chanKV chan<- kvPut

func (c chanKV) Put(k, v []byte) error { c <- kvPut{k, v}; return nil }

func (c chanKV) Get([]byte) []byte { return nil }

func (c chanKV) Delete([]byte) error { return errors.ErrUnsupported }

func (c chanKV) ForEach(func(k, v []byte) error) error { return errors.ErrUnsupported }

// savePrewrittenLocked is saveSegmentLocked for a segment PrewriteSegment
// wrote: it writes the dictionary, the manifest and the changes since
// (saveSinceLocked), and deletes every other record and tombstone and
// every chunk the new segment does not use. It reports false, having
// written nothing, when there is no such segment.
func (ix *Index) savePrewrittenLocked(kv index.KV) (bool, error) {
	pre := ix.pre
	ix.pre = nil
	if pre == nil {
		return false, nil
	}
	if err := ix.saveDictLocked(kv); err != nil {
		return true, err
	}
	streams := []byte{streamTables, streamFwd, streamPost}
	err := index.DeleteMatching(kv, func(k []byte) bool {
		if len(k) == 8 {
			return true
		}
		if len(k) != len(segChunkPrefix)+5 || !bytes.HasPrefix(k, segChunkPrefix) {
			return false
		}
		i := slices.Index(streams, k[len(segChunkPrefix)])
		return i < 0 || binary.BigEndian.Uint32(k[len(segChunkPrefix)+1:]) >= pre.chunks[i]
	})
	if err != nil {
		return true, fmt.Errorf("clear lexical records: %w", err)
	}
	n, err := ix.saveSinceLocked(kv, int(pre.m.docs))
	if err != nil {
		return true, err
	}
	if err := kv.Put(slices.Clone(segMetaKey), pre.m.encode()); err != nil {
		return true, fmt.Errorf("put lexical segment manifest: %w", err)
	}
	ix.savedLocked()
	ix.hasSeg, ix.segDocs, ix.deltaKeys, ix.rewrite = true, int(pre.m.docs), n, false
	return true, nil
}

// saveSinceLocked writes, in key order, a record for every live passage
// past the first base slots (added since those were written as a segment)
// and a tombstone for every passage of those slots deleted since and not
// added again. It returns how many it wrote.
func (ix *Index) saveSinceLocked(kv index.KV, base int) (int, error) {
	var ids []uint64
	slot := ix.slots()
	for s := range ix.docs {
		d := &ix.docs[s]
		_, live := slot[d.id]
		if s >= base && d.alive || s < base && !live {
			ids = append(ids, d.id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		v := []byte{tombstone}
		if s, ok := slot[id]; ok {
			v = encodeDoc(&ix.docs[s])
		}
		if err := kv.Put(docKey(id), v); err != nil {
			return 0, fmt.Errorf("put lexical record %d: %w", id, err)
		}
	}
	return len(ids), nil
}
