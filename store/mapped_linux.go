package store

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// mappedLen returns the length of the memory mapping that begins at addr,
// read from /proc/self/maps.
func mappedLen(addr uintptr) (int64, bool) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		span, _, _ := bytes.Cut(sc.Bytes(), []byte(" "))
		lo, hi, ok := bytes.Cut(span, []byte("-"))
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 == nil && err2 == nil && uintptr(start) == addr && end > start {
			return int64(end - start), true
		}
	}
	return 0, false
}
