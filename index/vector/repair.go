package vector

import "slices"

// repair unlinks every tombstoned slot and frees it for reuse. Each live node
// that pointed at a tombstone gets a new neighbour list chosen by the
// heuristic from its remaining neighbours plus the tombstones' neighbours
// (followed through chains of tombstones), so the graph stays connected
// without re-inserting anything. Tombstone vectors are never read, which lets
// Load use it for stored nodes whose vector is gone. A Config.Scan index,
// which has no graph, only frees the slots. Callers hold mu for writing.
func (x *Index) repair() int {
	if x.tombs == 0 {
		return 0
	}
	n := x.n
	tomb := make([]bool, n)
	any := false
	for s := 0; s < n; s++ {
		if x.state[s] == stateTomb {
			tomb[s], any = true, true
		}
	}
	if !any {
		x.tombs = 0
		return 0
	}
	if x.cfg.Scan { // no graph to mend
		x.freeTombs(tomb)
		return 0
	}
	var buf, sel []uint32
	var cs []cand
	v := x.getVisited()
	defer x.visited.Put(v)
	repaired := 0
	for s := uint32(0); int(s) < n; s++ {
		if x.state[s] != stateLive {
			continue
		}
		for l := 0; l <= int(x.levels[s]); l++ {
			buf = x.neighbours(buf[:0], s, l)
			if !slices.ContainsFunc(buf, func(nb uint32) bool { return tomb[nb] }) {
				continue
			}
			mmax := x.m
			if l == 0 {
				mmax = x.m0
			}
			cs = x.repairCands(cs[:0], s, l, mmax, buf, tomb, v)
			sortCands(cs)
			sel = x.selectNeighbours(cs, mmax, sel)
			x.setList(s, l, sel)
			repaired++
		}
	}
	x.freeTombs(tomb)
	x.fixEntry()
	return repaired
}

// repairCands collects live candidates for s on layer l: its live neighbours
// and the live nodes reachable from its tombstoned neighbours through at most
// two tombstones, capped so one repair stays O(mmax^2) distance computations.
func (x *Index) repairCands(cs []cand, s uint32, l, mmax int, nbrs []uint32, tomb []bool, v *visited) []cand {
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
	v.visit(s)
	sv := x.code(s)
	frontier := slices.Clone(nbrs)
	for hop := 0; hop < 3 && len(frontier) > 0 && len(cs) < 4*mmax; hop++ {
		var next []uint32
		for _, c := range frontier {
			if !v.visit(c) {
				continue
			}
			if tomb[c] {
				if int(x.levels[c]) >= l {
					next = x.neighbours(next, c, l)
				}
			} else if x.state[c] == stateLive {
				cs = append(cs, cand{c, approx(sv, x.code(c))})
			}
		}
		frontier = next
	}
	return cs
}

// freeTombs clears tombstoned slots and puts them on the free list.
func (x *Index) freeTombs(tomb []bool) {
	x.allocMu.Lock()
	defer x.allocMu.Unlock()
	for s, t := range tomb {
		if !t {
			continue
		}
		x.state[s] = stateFree
		if !x.cfg.Scan {
			clear(x.list(uint32(s), 0))
			x.upper[s] = nil
			x.levels[s] = 0
		}
		x.dirty[s] = false
		x.free = append(x.free, uint32(s))
	}
	x.tombs = 0
}

// fixEntry moves the entry point to a live node of the highest level when the
// current one was freed.
func (x *Index) fixEntry() {
	x.epMu.Lock()
	defer x.epMu.Unlock()
	if x.ep >= 0 && x.state[x.ep] == stateLive {
		return
	}
	x.ep, x.maxLevel = -1, -1
	for s := 0; s < x.n; s++ {
		if x.state[s] == stateLive && int(x.levels[s]) > x.maxLevel {
			x.ep, x.maxLevel = int64(s), int(x.levels[s])
		}
	}
}
