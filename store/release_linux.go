package store

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// releaseMapped advises the kernel that the n bytes mapped at addr are not
// needed: for a shared file mapping it unmaps the pages from this process
// (they stay in the page cache) and a later access faults them back in.
func releaseMapped(addr, n uintptr) error {
	if n == 0 {
		return nil
	}
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_DONTNEED); errno != 0 {
		return fmt.Errorf("release mapped library pages: %w", errno)
	}
	return nil
}

// pageSize is the memory page size madvise ranges are aligned to.
var pageSize = uintptr(os.Getpagesize())

// readAhead advises the kernel that the mapped bytes of v will be needed
// (MADV_WILLNEED: it starts reading them into the page cache). Errors are
// ignored: it is a hint.
func readAhead(v []byte) {
	if len(v) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	readAheadRange(start, start+uintptr(len(v)))
}

// populate maps the bytes of v into the process (MADV_POPULATE_READ).
// Errors are ignored: an older kernel refuses the advice (EINVAL), and a
// range past the file's end (EFAULT) faults when it is read, under the
// reader's guard.
func populate(v []byte) {
	if len(v) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(v))) &^ (pageSize - 1)
	hi := (uintptr(unsafe.Pointer(unsafe.SliceData(v))) + uintptr(len(v)) + pageSize - 1) &^ (pageSize - 1)
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_POPULATE_READ)
}

// readAheadRange is readAhead for the mapped bytes [lo, hi).
func readAheadRange(lo, hi uintptr) {
	lo &^= pageSize - 1
	hi = (hi + pageSize - 1) &^ (pageSize - 1)
	if hi <= lo {
		return
	}
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_WILLNEED)
}
