package store

import (
	"testing"
	"unsafe"
)

// TestAheadReaderHintsOnlyWalksInFileOrder: values read in page order get
// the pages after them hinted, without gaps and within the file; values
// scattered over the file get no hint at all, so such a walk reads nothing
// more than it did.
func TestAheadReaderHintsOnlyWalksInFileOrder(t *testing.T) {
	var hints [][2]uintptr
	defer func(h func(lo, hi uintptr)) { hintAhead = h }(hintAhead)
	hintAhead = func(lo, hi uintptr) { hints = append(hints, [2]uintptr{lo, hi}) }
	const size = 16 << 20
	file := make([]byte, size) // stands for the map: only addresses are used
	base := uintptr(unsafe.Pointer(unsafe.SliceData(file)))
	page := int(osPage)

	r := &aheadReader{lo: base, hi: base + size}
	for i := range 4000 {
		off := (i * 7919 % (size/page - 1)) * page // a far page every time
		r.saw(file[off : off+100])
	}
	if len(hints) != 0 {
		t.Fatalf("a scattered walk was hinted %d times: %v", len(hints), hints[:1])
	}

	r = &aheadReader{lo: base, hi: base + size}
	for off := 0; off < size; off += page / 4 { // four values a page, in order
		r.saw(file[off : off+100])
	}
	if len(hints) == 0 {
		t.Fatal("a walk in file order was not hinted")
	}
	if first := hints[0][0] - base; first > uintptr(aheadAfter+1)*osPage {
		t.Errorf("first hint at %d bytes in, want within the first %d pages", first, aheadAfter+1)
	}
	for i := 1; i < len(hints); i++ {
		if hints[i][0] != hints[i-1][1] {
			t.Fatalf("hint %d starts at %#x, the one before ended at %#x: want no gap or overlap", i, hints[i][0], hints[i-1][1])
		}
	}
	if end := hints[len(hints)-1][1]; end != base+size {
		t.Errorf("hints end %d bytes before the file's end, want at it", base+size-end)
	}
	if max := size/(aheadWindow/2) + 1; len(hints) > max {
		t.Errorf("%d hints for %d MB, want at most %d (one per half window)", len(hints), size>>20, max)
	}

	hints = nil
	r = &aheadReader{lo: base, hi: base + size}
	r.saw(make([]byte, 10)) // a value outside the map: ignored
	r.saw(nil)
	if len(hints) != 0 || r.run != 0 {
		t.Errorf("values outside the map changed the walk: hints %v, run %d", hints, r.run)
	}
}
