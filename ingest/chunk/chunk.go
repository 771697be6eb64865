package chunk

import (
	"errors"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/analysis"
)

// Default sizes, in estimated tokens, chosen by `make eval`: 512-token
// passages beat 128, 256 and 384 on SciFact and Cranfield and put a relevant
// page in the top 5 most often on the long-PDF check (README, Retrieval
// quality).
const (
	DefaultSize    = 512
	DefaultOverlap = 32

	// MinSize is the smallest accepted Options.Size. Every single character
	// is estimated at two tokens or fewer, so any Size >= MinSize can hold it.
	MinSize = 4
	// MaxSize is the largest accepted Options.Size, far above any model's
	// input limit.
	MaxSize = 1 << 24
)

// Errors returned by Split.
var (
	// ErrInvalidOptions means Options.Size is outside [MinSize, MaxSize] or
	// Options.Overlap is negative or not smaller than Size.
	ErrInvalidOptions = errors.New("invalid chunk options")
	// ErrInvalidPages means pageStarts does not start at 0, decreases, or
	// points past the end of the text.
	ErrInvalidPages = errors.New("invalid page starts")
	// ErrInvalidHeadings means a heading's offset is outside the text or
	// before the previous heading's.
	ErrInvalidHeadings = errors.New("invalid headings")
)

// Options sizes the passages, in tokens as counted by EstimateTokens.
type Options struct {
	Size    int // upper bound on a passage's estimated tokens
	Overlap int // about this many tokens of a passage are repeated at the start of the next
}

// DefaultOptions returns Options{Size: DefaultSize, Overlap: DefaultOverlap}.
func DefaultOptions() Options {
	return Options{Size: DefaultSize, Overlap: DefaultOverlap}
}

// Validate returns an error wrapping ErrInvalidOptions if o cannot be used.
func (o Options) Validate() error {
	if o.Size < MinSize || o.Size > MaxSize {
		return fmt.Errorf("%w: size %d is outside [%d, %d]", ErrInvalidOptions, o.Size, MinSize, MaxSize)
	}
	if o.Overlap < 0 || o.Overlap >= o.Size {
		return fmt.Errorf("%w: overlap %d must be in [0, size %d)", ErrInvalidOptions, o.Overlap, o.Size)
	}
	return nil
}

// Chunk is one passage of a document.
type Chunk struct {
	Index              int    // 0-based, in order
	Text               string // == text[Start:End]
	Start, End         int    // byte offsets into the document text
	PageStart, PageEnd int    // 1-based pages the chunk spans (page i starts at byte pageStarts[i-1])
	// Headings is the heading path, outermost first, in force over most of
	// the passage's new text (the part it does not repeat from the
	// previous passage), counted in non-space bytes; on a tie the earlier
	// path, the one the new text starts under (headings right at its start
	// count as starting it). nil when no heading precedes that text.
	Headings []string
}

// Heading is a heading of the text passed to SplitHeadings.
type Heading struct {
	Level  int    // outline level: a heading closes the open ones of the same or a deeper level
	Title  string // the heading's text
	Offset int    // byte offset in the text where the heading starts
}

// Split splits text into passages of at most opts.Size estimated tokens (see
// EstimateTokens), with about opts.Overlap tokens repeated between
// neighbours. It cuts before a question line (a line ending in "?" after a
// sentence end, or starting "Q:" or "Question 3.") or a short bold line if
// one leaves the passage at least a quarter full, and then repeats nothing
// of the previous passage, so a FAQ's question stays with its answer; else
// at a paragraph break if one leaves the passage at least half full, else
// at a sentence end, a line break, a space or a CJK character boundary,
// and inside a word only when one word alone exceeds Size. The break right
// after a question line ranks as a space. It never
// cuts inside a UTF-8 sequence. Passages start and end on non-space text;
// together they cover every non-space byte, and their Starts strictly
// increase.
//
// pageStarts holds the byte offset where each page starts (pageStarts[0] ==
// 0, non-decreasing, each <= len(text)); nil or empty means one page. Empty or
// all-space text yields no chunks.
//
// Split is deterministic, pure and safe for concurrent use. It returns an
// error wrapping ErrInvalidOptions or ErrInvalidPages for bad input, and
// turns an internal bug into an error rather than a panic.
func Split(text string, pageStarts []int, opts Options) ([]Chunk, error) {
	return SplitHeadings(text, pageStarts, nil, opts)
}

// SplitHeadings is Split for a text with headings (in order of Offset): it
// prefers to cut just before a heading over any other boundary, does not
// repeat the end of one section at the start of the next, and gives each
// Chunk its heading path. It returns an error wrapping ErrInvalidHeadings
// when the offsets are out of order or outside the text, and the errors of
// Split.
func SplitHeadings(text string, pageStarts []int, heads []Heading, opts Options) (chunks []Chunk, err error) {
	defer func() {
		if r := recover(); r != nil {
			chunks, err = nil, fmt.Errorf("split text: internal error: %v", r)
		}
	}()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := validatePages(pageStarts, len(text)); err != nil {
		return nil, err
	}
	if err := validateHeadings(heads, len(text)); err != nil {
		return nil, err
	}
	return split(text, pageStarts, heads, opts, false), nil
}

// split is SplitHeadings on valid input; whole makes the splitter read the
// whole text before its first cut, as it did before it streamed (the
// tests compare the two).
func split(text string, pageStarts []int, heads []Heading, opts Options, whole bool) (chunks []Chunk) {
	s := newSplitter(text, heads, opts)
	s.whole = whole
	path := &headingPath{text: text, heads: heads}
	s.run(func(first, last, prevLast int) {
		start, end := s.atoms[first].Start, s.atoms[last].End
		chunks = append(chunks, Chunk{
			Index:     len(chunks),
			Text:      text[start:end],
			Start:     start,
			End:       end,
			PageStart: pageOf(pageStarts, start),
			PageEnd:   pageOf(pageStarts, end-1),
			Headings:  path.over(s.atoms[max(first, prevLast+1)].Start, end),
		})
	})
	return chunks
}

func validatePages(pageStarts []int, n int) error {
	if len(pageStarts) == 0 {
		return nil
	}
	if pageStarts[0] != 0 {
		return fmt.Errorf("%w: first page must start at 0", ErrInvalidPages)
	}
	for i := 1; i < len(pageStarts); i++ {
		if pageStarts[i] < pageStarts[i-1] || pageStarts[i] > n {
			return fmt.Errorf("%w: page %d starts at %d", ErrInvalidPages, i+1, pageStarts[i])
		}
	}
	return nil
}

// pageOf returns the 1-based page holding byte off: the last page starting
// at or before it, so empty pages are skipped.
func pageOf(pageStarts []int, off int) int {
	if len(pageStarts) == 0 {
		return 1
	}
	return sort.Search(len(pageStarts), func(i int) bool { return pageStarts[i] > off })
}

// splitter cuts a document into passages while it reads it: it holds a
// window of the document's atoms with prefix sums of their costs, places
// each cut as soon as the atoms after the passage's start are enough to
// decide it exactly as if the whole document were known (three passages'
// worth of atom cost; see ready), and drops the atoms behind. Its memory is
// bounded by the window, not the document: atoms cost about 40 bytes for
// every 5 bytes of text, so a whole 148 MiB text held 1.2 GB of them.
//
// Indices (first, prevLast, the arguments of cut, next, tokens) are into
// the window.
type splitter struct {
	text   string
	heads  []Heading // markSection's headings, in order
	marked int       // heads[:marked] have been placed
	seen   int       // atoms added so far
	atoms  []analysis.Atom
	gaps   []int   // whitespace cost before atoms[i]
	levels []level // how good a cut the gap before atoms[i] is
	pre    []int   // pre[i] = sum over k < i of gaps[k] + atoms[k].Cost (+ what was dropped)
	cost   []int   // cost[i] = sum over k < i of atoms[k].Cost (+ what was dropped)
	limit  int     // opts.Size in centitokens
	over   int     // opts.Overlap in centitokens

	first, prevLast int  // the next passage's first atom; the previous passage's last
	whole           bool // cut nothing before the end (the tests' reference)
}

// windowKeep is how many atoms before the next passage's first the window
// keeps, for gapLevel looking back over closing quotes and brackets.
const windowKeep = 64

func newSplitter(text string, heads []Heading, opts Options) *splitter {
	return &splitter{text: text, heads: heads, limit: opts.Size * analysis.CostPerToken, over: opts.Overlap * analysis.CostPerToken,
		pre: []int{0}, cost: []int{0}, prevLast: -1}
}

// run atomizes the text and calls yield with the window indices of each
// passage's first and last atom and the previous passage's last, in order.
// The window is valid during the call.
func (s *splitter) run(yield func(first, last, prevLast int)) {
	analysis.Atomize(s.text, func(a analysis.Atom, gap int) {
		if a.Cost <= s.limit {
			s.add(a, gap)
		} else {
			for _, p := range splitAtom(s.text, a, s.limit) {
				s.add(p, gap)
				gap = 0
			}
		}
		s.flush(false, yield)
	})
	s.flush(true, yield)
}

// add appends an atom, ranking the gap before it (a heading starting at
// or before it, and after the previous atom, makes it a section cut).
func (s *splitter) add(a analysis.Atom, gap int) {
	i := len(s.atoms)
	s.atoms, s.gaps = append(s.atoms, a), append(s.gaps, gap)
	s.pre, s.cost = append(s.pre, s.pre[i]+gap+a.Cost), append(s.cost, s.cost[i]+a.Cost)
	lv := level(0)
	if s.seen > 0 {
		lv = gapLevel(s.text, s.atoms, i)
	}
	s.levels = append(s.levels, lv)
	s.markSection(a)
	s.seen++
}

// ready reports whether the passage at s.first can be cut without the
// atoms still to come: any cut fits in limit, so with three limits of atom
// cost in the window at least two lie after every candidate cut, and cut
// and next then see what they would see with the whole document (the end
// is not near, the rest is more than a quarter of a passage).
func (s *splitter) ready() bool {
	return s.cost[len(s.atoms)]-s.cost[s.first] >= 3*s.limit
}

// flush emits every passage that can be cut now (all of them at the end)
// and drops the atoms no later passage needs.
func (s *splitter) flush(end bool, yield func(first, last, prevLast int)) {
	for s.first < len(s.atoms) && (end || !s.whole && s.ready()) {
		last := s.cut(s.first, s.prevLast)
		yield(s.first, last, s.prevLast)
		s.first, s.prevLast = s.next(s.first, last), last
	}
	k := s.first - windowKeep
	if k < 4096 || k < len(s.atoms)/2 { // copy rarely: amortised O(1) per atom
		return
	}
	s.atoms = append(s.atoms[:0], s.atoms[k:]...)
	s.gaps = append(s.gaps[:0], s.gaps[k:]...)
	s.levels = append(s.levels[:0], s.levels[k:]...)
	s.pre = append(s.pre[:0], s.pre[k:]...)
	s.cost = append(s.cost[:0], s.cost[k:]...)
	s.first, s.prevLast = s.first-k, s.prevLast-k
}

// splitAtom cuts a run costing more than limit into pieces that each cost at
// most limit, at rune boundaries.
func splitAtom(text string, a analysis.Atom, limit int) []analysis.Atom {
	var pieces []analysis.Atom
	start, sum, pos := a.Start, 0, 0
	for i := a.Start; i < a.End; pos++ {
		r, size := utf8.DecodeRuneInString(text[i:a.End])
		c := analysis.RuneCost(r, size, a.Class, pos)
		if i > start && analysis.AtomCost(sum+c, a.Class) > limit {
			pieces = append(pieces, analysis.Atom{Start: start, End: i, Cost: analysis.AtomCost(sum, a.Class), Class: a.Class})
			start, sum = i, 0
		}
		sum += c
		i += size
	}
	return append(pieces, analysis.Atom{Start: start, End: a.End, Cost: analysis.AtomCost(sum, a.Class), Class: a.Class})
}

// tokens is the cost of atoms[a..b] inclusive with the whitespace between
// them, in centitokens.
func (s *splitter) tokens(a, b int) int {
	return s.pre[b+1] - s.pre[a] - s.gaps[a]
}

// levelAfter ranks cutting right after atoms[i].
func (s *splitter) levelAfter(i int) level {
	if i == len(s.atoms)-1 {
		return levelEnd
	}
	return s.levels[i+1]
}

// cut returns the last atom of the chunk starting at atoms[first]; atoms up to
// prevLast are already in the previous chunk. Among the cuts that fit, it
// prefers, in order: one that leaves either nothing or at least a quarter
// of a chunk for the rest of the text (no tiny last chunk); one between
// words rather than inside one; one that adds at least half of the room
// left after the overlap (a quarter before a heading or a question line);
// the best-ranked
// boundary; the latest.
func (s *splitter) cut(first, prevLast int) int {
	from := max(first, prevLast+1) // the first new atom
	room := s.limit
	if prevLast >= first {
		room -= s.tokens(first, prevLast)
	}
	last := len(s.atoms) - 1
	best, bestKey := from, cutKey{}
	for e := from; e <= last && s.tokens(first, e) <= s.limit; e++ {
		lv := s.levelAfter(e)
		key := cutKey{
			tail:    e == last || 4*s.tokens(e+1, last) >= room,
			between: lv > levelNone,
			full:    2*s.tokens(from, e) >= room || (lv >= levelQuestion && lv < levelEnd && 4*s.tokens(from, e) >= room),
			level:   lv,
		}
		if e == from || !key.less(bestKey) {
			best, bestKey = e, key
		}
	}
	return best
}

// cutKey ranks a candidate cut; fields in order of importance.
type cutKey struct {
	tail, between, full bool
	level               level
}

func (k cutKey) less(o cutKey) bool {
	switch {
	case k.tail != o.tail:
		return !k.tail
	case k.between != o.between:
		return !k.between
	case k.full != o.full:
		return !k.full
	}
	return k.level < o.level
}

// next returns the first atom of the chunk after atoms[first..last]: an atom
// inside it that repeats at most Overlap tokens (preferring a sentence or
// paragraph start), or last+1.
func (s *splitter) next(first, last int) int {
	if last+1 >= len(s.atoms) || s.over == 0 || s.levels[last+1] >= levelQuestion {
		return last + 1
	}
	best, bestLevel, bestHalf := last+1, level(0), false
	for b := last; b > first; b-- {
		if s.tokens(b, last) > s.over || s.tokens(b, last+1) > s.limit {
			break
		}
		half := 2*s.tokens(b, last) >= s.over
		if lv := s.levels[b]; (half && !bestHalf) || (half == bestHalf && lv >= bestLevel) {
			best, bestLevel, bestHalf = b, lv, half
		}
	}
	return best
}
