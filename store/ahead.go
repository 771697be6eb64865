package store

import (
	"os"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// aheadReader follows a walk over a bucket's values and, while they come
// from consecutive file pages, asks the kernel to read the pages after
// them ahead (readAheadRange). bbolt maps its file for random access, so a
// walk over a bucket whose pages are not in the page cache (after a reboot)
// otherwise faults them in one 4 KB page at a time: at a million passages
// the vector index's records are ~170k pages that lie almost all in file
// order. A bucket whose pages are scattered over the file (a jump at most
// values) is not hinted at all, so a walk over it reads no more than it
// did. Not safe for concurrent use; one per walk.
type aheadReader struct {
	lo, hi uintptr // the file's mapped bytes in use
	page   uintptr // the page of the last value seen
	run    int     // page steps in file order since the last jump
	ahead  uintptr // hinted up to here (0: nothing hinted since the last jump)
}

// aheadAfter is how many steps to the next page in a row make a walk
// sequential; aheadWindow how far past a value the pages are hinted (a hint
// goes out each time the walk comes within half of it of the hinted end).
// Loading the vector index of a cold 1M library took 3.2-3.9 s with windows
// of 512 KB to 2 MB, 3.2-4.2 s with 4 MB and 9-11 s with 16 MB (a large
// hint holds the walk up while the kernel queues its reads).
const (
	aheadAfter  = 4
	aheadWindow = 2 << 20
)

// newAheadReader returns an aheadReader for a walk in tx's file.
func newAheadReader(tx *bolt.Tx) *aheadReader {
	base := tx.DB().Info().Data
	return &aheadReader{lo: base, hi: base + uintptr(tx.Size())}
}

// saw notes that the walk read value v (a slice of the file's map).
func (r *aheadReader) saw(v []byte) {
	if len(v) == 0 {
		return
	}
	at := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	if at < r.lo || at >= r.hi {
		return // not in the map (a value bbolt copied): says nothing of the walk
	}
	p := at / osPage
	switch p {
	case r.page:
	case r.page + 1:
		r.run++
	default:
		r.run, r.ahead = 0, 0
	}
	r.page = p
	if r.run < aheadAfter || at+aheadWindow/2 < r.ahead {
		return
	}
	from, to := max(at, r.ahead), min(at+aheadWindow, r.hi)
	if from >= to {
		return // hinted to the end of the file
	}
	hintAhead(from, to)
	r.ahead = to
}

// hintAhead is readAheadRange (a variable for tests).
var hintAhead = readAheadRange

// osPage is the memory page size.
var osPage = uintptr(os.Getpagesize())
