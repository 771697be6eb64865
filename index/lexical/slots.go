package lexical

import (
	"math"
	"slices"
)

// Which touched slots a stop reads. The slots a list touches first form a
// segment of sc.touched; segBounds bounds a segment's partial sums by the
// summed bounds of its list and the later ones read, which is coarse: at a
// million passages a stop of a SciFact claim read ~73k slots, ~10k of them
// at or above the floor it needed. Most slots of the later, common lists'
// segments were touched by their own list only, so their partial sum is
// that list's contribution, below its bound alone (segOnce); the others
// were touched again by a later list, and every such addition is recorded
// in sc.ev with the sum it made (addList, addTable, addTouched). A slot's
// last event holds its partial sum. So a stop reads in full only the
// segments whose own list's bound reaches its floor, and of the rest only
// the slots of events whose sum reaches it: a sequential scan of ~44k
// events and a few hundred slots where it read ~50k slots at random places
// in the accumulator. A slot met twice (in a segment read and in an event,
// or in two events) is read once: bestPartial marks the slots it has taken
// by negating their partial sums (all positive) and restores them before it
// returns. Results stay exactly exhaustive's: TestSegOnceMatchesExhaustive.

// event is an addition to a slot touched already: the slot, and its partial
// sum after it.
type event struct {
	slot uint32
	sum  float32
}

// segOnceSkip lets bestPartial skip segments by their own list's bound
// (tests: false reads every segment whose summed bound reaches the floor).
var segOnceSkip = true

// onSegSkip, when set (tests), is called for each segment bestPartial
// leaves to the events.
var onSegSkip func()

// bestPartial returns the k touched slots with the largest partial sums, as
// a min-heap in sc.best (ID: slot; ties in any order: these only choose
// whom to rescore first).
//
// In the same pass it gathers what candidates will filter, so that a
// successful stop reads the touched slots once rather than twice; and it
// reads only the segments of them (see segBounds) that can hold one of the
// k best partial sums or a candidate. Once k partial sums are held and
// floor(their k-th, r) is positive, every later slot whose partial sum
// reaches that running floor goes to sc.pre (sc.preFrom is where that
// began, -1 if it never did; sc.preLow the last floor used). The k-th best
// exact score θ is at least the k-th best partial sum, which is at least
// the running k-th, so the slots left out cannot reach candidates'
// floor(θ, r) either. A positive seed, floor(θ, r) of the θ of the results
// tryStop holds already, is such a floor from the first slot on: a slot
// below it can neither be a candidate nor enter those results. Of a
// segment whose own list's bound is below the floor, only the slots of
// events reaching it are read (see above).
func (sc *scratch) bestPartial(k int, r, margin float64, seed float32) []Result {
	p := partial{best: sc.best[:0], pre: sc.pre[:0], from: -1, k: k, r: r, margin: margin}
	if seed > 0 && gatherPre {
		p.from, p.low = 0, seed
	}
	sc.segBounds(margin)
	start, skipped := 0, false
	for j, end := range sc.segEnd {
		if p.from >= 0 && sc.segUB[j] < p.low {
			break // low is at most the k-th partial sum held
		}
		if p.from >= 0 && sc.segOnce[j] < p.low && segOnceSkip {
			skipped = true // its slots that may reach low are in sc.ev
			if onSegSkip != nil {
				onSegSkip()
			}
		} else {
			sc.readSegment(&p, start, end)
		}
		start = end
	}
	if skipped {
		sc.readEvents(&p)
	}
	sc.unmark(&p)
	sc.best, sc.pre, sc.preFrom, sc.preLow = p.best, p.pre, p.from, p.low
	return p.best
}

// partial is what bestPartial holds while it reads.
type partial struct {
	best      []Result
	pre       []uint32
	from      int     // where in sc.touched pre began, -1 until it does
	low       float32 // the running floor
	k         int
	r, margin float64
}

// offer offers slot s with partial sum a (at least p.low) to the k best,
// and reports whether that raised the running floor.
func (p *partial) offer(s uint32, a float32) bool {
	if len(p.best) == p.k && a <= p.best[0].Score {
		return false
	}
	p.best = pushBest(p.best, Result{ID: uint64(s), Score: a}, p.k)
	if f := floor(float64(p.best[0].Score), p.r, p.margin); len(p.best) == p.k && f > p.low && gatherPre {
		p.low = f
		return true
	}
	return false
}

// readSegment reads sc.touched[start:end] into p, marking what goes to
// p.pre; when the floor first turns positive, it marks the slots read
// before that reach it (candidates reads them again from sc.touched).
func (sc *scratch) readSegment(p *partial, start, end int) {
	acc := sc.acc
	for i := start; i < end; i++ {
		s := sc.touched[i]
		a := acc[s]
		if a < p.low {
			continue
		}
		if p.offer(s, a) && p.from < 0 {
			p.from = i + 1 // slot i is read again with those before it
			for _, t := range sc.touched[:i+1] {
				if v := acc[t]; v >= p.low {
					acc[t] = -v
				}
			}
		}
		if p.from >= 0 && i >= p.from {
			p.pre, acc[s] = append(p.pre, s), -a
		}
	}
}

// readEvents reads into p the slots of the events whose sum reaches the
// floor, once each: a slot's partial sum is at least the sum of any of its
// events, so every slot of a skipped segment that reaches the floor is
// met (at its last event at least).
func (sc *scratch) readEvents(p *partial) {
	acc := sc.acc
	for _, e := range sc.ev {
		if e.sum < p.low {
			continue
		}
		a := acc[e.slot]
		if a < 0 {
			continue // read already (marked)
		}
		p.offer(e.slot, a)
		p.pre, acc[e.slot] = append(p.pre, e.slot), -a
	}
}

// unmark restores the partial sums readSegment and readEvents negated.
func (sc *scratch) unmark(p *partial) {
	if p.from < 0 {
		return
	}
	acc := sc.acc
	for _, s := range sc.touched[:p.from] {
		acc[s] = abs32(acc[s])
	}
	for _, s := range p.pre {
		acc[s] = abs32(acc[s])
	}
}

// abs32 is |f|.
func abs32(f float32) float32 {
	return math.Float32frombits(math.Float32bits(f) &^ (1 << 31))
}

// gatherPre lets bestPartial gather candidates (tests: false makes
// candidates read the touched slots itself).
var gatherPre = true

// segBounds sets sc.segUB[j], for the slots first touched by list j (a
// segment of sc.touched, ending at sc.segEnd[j]), to a float32 bound of
// their partial sums: the summed bounds of lists j on, up to the last read,
// times margin, rounded up; and sc.segOnce[j] to list j's bound alone,
// which bounds those slots no later list touched (their partial sum is
// list j's contribution). The bounds fall from segment to segment.
func (sc *scratch) segBounds(margin float64) {
	n := len(sc.segEnd)
	sc.segUB = slices.Grow(sc.segUB[:0], n)[:n]
	sc.segOnce = slices.Grow(sc.segOnce[:0], n)[:n]
	sum := 0.0
	for j := n - 1; j >= 0; j-- {
		sum += sc.cursors[j].ub
		sc.segUB[j] = up32(sum * margin)
		sc.segOnce[j] = up32(sc.cursors[j].ub * margin)
	}
}

// up32 is b as a float32 rounded up.
func up32(b float64) float32 {
	f := float32(b)
	if float64(f) < b {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// keep is the least new sum of an addition of c's to a touched slot that
// bestPartial may need from sc.ev: c's bound, rounded down. The cursors
// fall by bound, so a slot that c touches again belongs to the segment of
// a list whose bound is at least c's, and bestPartial skips that segment
// only for a floor above that bound (segOnce); an event below it can hold
// no slot of a skipped segment that reaches the floor. Recording only these
// keeps most additions of the common lists out of sc.ev.
func (c *cursor) keep() float32 {
	return float32(c.ub * (1 - 0x1p-20))
}

// record appends to ev the addition of c's that made slot s's partial sum
// sum, if it may matter (keep), and returns ev.
func (c *cursor) record(ev []event, s uint32, sum float32) []event {
	if sum >= c.keep() {
		ev = append(ev, event{slot: s, sum: sum})
	}
	return ev
}

// added reports, without a branch (on common words about every other
// posting touches its slot first), whether an addition that took a slot's
// partial sum from v to nv touched it first (1: v is 0), and whether it
// goes to the events (1: it did not, and nv reaches keep). Partial sums
// are not negative, so their bits compare as they do.
func added(v, nv, keep float32) (first, again int) {
	if v == 0 { // contributions are positive: 0 means untouched
		first = 1
	}
	below := int(uint64(int64(math.Float32bits(nv))-int64(math.Float32bits(keep))) >> 63)
	return first, (1 - below) &^ first
}
