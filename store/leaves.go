package store

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// Reading a bucket's leaves ahead of a walk over it. bbolt maps the file
// for random access, so a walk over a bucket whose leaf pages lie scattered
// over a file that is out of the page cache (after a reboot, or pushed out
// by a larger file) faults them in one 4 KB read at a time, each waiting
// for the last: at a million passages the 250,000 document records are
// 45,000 leaves spread over 9.6 GB, and listing them took 6-15 s. The
// leaves' page ids are all in the bucket's branch pages, a few hundred of
// them, so hintLeaves reads those and asks the kernel for every leaf at
// once (MADV_WILLNEED): the reads overlap and the walk finds most pages
// read. (aheadReader serves walks over leaves that lie in file order.)

// bbolt's page layout (go.etcd.io/bbolt, file format version 2, integers in
// the machine's byte order as bbolt writes them): a 16-byte header (id
// uint64, flags uint16, count uint16, overflow uint32), and in a branch page
// count 16-byte elements (key offset uint32, key size uint32, child pgid
// uint64).
const (
	pageHeaderSize    = 16
	branchElementSize = 16
	branchPageFlag    = 0x01
	leafPageFlag      = 0x02
	maxTreeDepth      = 32
)

// leafPageIDs returns the page ids of the leaves under page root, in key
// order, reading the branch pages of file (the whole mapped file, pages of
// psz bytes). A B+tree's leaves are all at one depth, so only the first
// child of a branch is read to tell leaves from branches. It returns nil
// when root is a leaf, and stops at the first page that does not parse;
// it returns at most as many ids as file has pages, each a page past the
// meta pages (the hints are only hints; the walk itself reports damage).
func leafPageIDs(file []byte, psz int, root uint64) []uint64 {
	var out []uint64
	pages := len(file) / max(psz, 1)
	budget := pages // branch pages a sound tree can have at most
	var walk func(id uint64, depth int) bool
	page := func(id uint64) []byte {
		if psz <= 0 || id < 2 || id >= uint64(pages) {
			return nil
		}
		return file[int(id)*psz : int(id+1)*psz]
	}
	flags := func(p []byte) uint16 { return binary.NativeEndian.Uint16(p[8:]) }
	walk = func(id uint64, depth int) bool {
		p := page(id)
		if p == nil || depth > maxTreeDepth || budget <= 0 || flags(p) != branchPageFlag {
			return false
		}
		budget--
		count := int(binary.NativeEndian.Uint16(p[10:]))
		overflow := int(binary.NativeEndian.Uint32(p[12:]))
		end := int(id) * psz
		if overflow > 0 { // a branch page too large for one page runs on
			if int(id)+overflow >= pages {
				return false
			}
			p = file[end : end+(1+overflow)*psz]
		}
		if count == 0 || pageHeaderSize+count*branchElementSize > len(p) {
			return false
		}
		child := func(i int) uint64 {
			return binary.NativeEndian.Uint64(p[pageHeaderSize+i*branchElementSize+8:])
		}
		first := page(child(0))
		if first == nil {
			return false
		}
		if flags(first) == leafPageFlag {
			for i := range count {
				if len(out) == pages {
					return false // more leaves than the file has pages: damaged
				}
				if page(child(i)) != nil { // a damaged id would hint outside the file
					out = append(out, child(i))
				}
			}
			return true
		}
		for i := range count {
			if !walk(child(i), depth+1) {
				return false
			}
		}
		return true
	}
	walk(root, 0)
	return out
}

// hintLeaves starts asking the kernel to read the leaf pages of bucket b
// (key order, consecutive pages in one request) for a walk over it in tx,
// and returns a func that stops the hints and waits for them: call it
// before the transaction ends. It reads the branch pages itself (in the
// caller's goroutine, under its fault guard); the hints go out from a
// goroutine of their own, a syscall each, and never read the map. It does
// nothing where hints are not used (readAheadRange is a no-op there), for
// an inline bucket and for a bucket of one leaf.
func hintLeaves(tx *bolt.Tx, b *bolt.Bucket) (stop func()) {
	nothing := func() {}
	if runtime.GOOS != "linux" || b == nil {
		return nothing
	}
	k, _ := b.Cursor().First() // a slice of the map, to find the map by
	file := mappedFile(tx, k)
	if file == nil {
		return nothing
	}
	psz := tx.DB().Info().PageSize
	leaves := leafPageIDs(file, psz, uint64(b.Root()))
	if len(leaves) < 2 {
		return nothing
	}
	base := addrOf(file)
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; i < len(leaves) && !done.Load(); {
			j := i + 1
			for j < len(leaves) && leaves[j] == leaves[j-1]+1 {
				j++
			}
			hintAhead(base+uintptr(leaves[i])*uintptr(psz), base+uintptr(leaves[j-1]+1)*uintptr(psz))
			i = j
		}
	})
	return func() {
		done.Store(true)
		wg.Wait()
	}
}

// mappedFile returns tx's whole mapped file as a slice, found from anchor,
// a slice bbolt returned that lies in the map; nil when it does not.
func mappedFile(tx *bolt.Tx, anchor []byte) []byte {
	lo, n := tx.DB().Info().Data, uintptr(tx.Size())
	if len(anchor) == 0 || n == 0 {
		return nil
	}
	at := addrOf(anchor)
	if at < lo || at >= lo+n {
		return nil
	}
	start := unsafe.Add(unsafe.Pointer(unsafe.SliceData(anchor)), -int(at-lo))
	return unsafe.Slice((*byte)(start), int(n))
}
