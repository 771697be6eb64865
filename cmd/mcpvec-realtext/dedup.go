package main

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
)

// dedup remembers the files a conversion has seen, so that a package that
// ships the same page twice (vtk9-doc installs its Doxygen HTML both in
// doc/vtk9/html and doc/vtk9/doxygen/html) gives each text once: the first
// in list order is kept. Only files of the same size are hashed. Not safe
// for concurrent use (the list is read by one goroutine).
type dedup struct {
	bySize map[int64][]dedupEntry
}

type dedupEntry struct {
	path string
	sum  []byte // nil until a file of the same size is seen
}

// repeat reports whether path holds the same bytes as a file seen before;
// a file that cannot be read is never a repeat (its conversion reports it).
func (d *dedup) repeat(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	if d.bySize == nil {
		d.bySize = make(map[int64][]dedupEntry)
	}
	same := d.bySize[st.Size()]
	if len(same) == 0 {
		d.bySize[st.Size()] = []dedupEntry{{path: path}}
		return false
	}
	sum := fileSum(path)
	for i := range same {
		if same[i].sum == nil {
			same[i].sum = fileSum(same[i].path)
		}
		if sum != nil && bytes.Equal(same[i].sum, sum) {
			return true
		}
	}
	d.bySize[st.Size()] = append(same, dedupEntry{path: path, sum: sum})
	return false
}

// fileSum is the SHA-256 of path's bytes, or nil when it cannot be read.
func fileSum(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil
	}
	return h.Sum(nil)
}
