package lexical

// SavePlan tells what the next Save writes: records, the number of
// passage records and tombstones (and, when segment is true, a whole new
// segment in their place). A caller that keeps the KV's values read in
// place (InPlace) across its write can tell from it whether that write is
// small. After PrewriteSegment, records is about what the Save writes
// beside the segment it wrote: the passages added since and the removals
// since. It is safe for concurrent use.
func (ix *Index) SavePlan() (records int, segment bool) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if pre := ix.pre; pre != nil {
		return len(ix.docs) - int(pre.m.docs) + max(0, len(ix.removed)-pre.removed), true
	}
	return len(ix.dirty) + len(ix.removed), ix.segmentDueLocked()
}
