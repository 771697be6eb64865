package store

import (
	"os"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Evict writes path's pages out and drops them from the page cache.
func Evict(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Skipf("fadvise: %v", err)
	}
}

// Resident is the share of v's memory pages in the page cache.
func Resident(t *testing.T, v []byte) float64 {
	t.Helper()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(v)))
	lo := start &^ (page - 1)
	hi := (start + uintptr(len(v)) + page - 1) &^ (page - 1)
	vec := make([]byte, (hi-lo)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, lo, hi-lo, uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); errno != 0 {
		t.Fatalf("mincore: %v", errno)
	}
	in := 0
	for _, b := range vec {
		in += int(b & 1)
	}
	return float64(in) / float64(len(vec))
}
