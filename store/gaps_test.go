package store

import (
	"fmt"
	"testing"
)

func TestGaps(t *testing.T) {
	const page = 0x1000
	for _, c := range []struct {
		kept [][2]uintptr
		want string
	}{
		{nil, "[[16384 32768]]"},
		{[][2]uintptr{{0x5010, 0x6ff0}}, "[[16384 20480] [28672 32768]]"},                       // rounded out to whole pages
		{[][2]uintptr{{0x1000, 0x5000}, {0x7800, 0x9000}}, "[[20480 28672]]"},                   // overlapping both ends
		{[][2]uintptr{{0x4000, 0x5000}, {0x4800, 0x6000}, {0x7000, 0x7001}}, "[[24576 28672]]"}, // overlapping each other
		{[][2]uintptr{{0x9000, 0xa000}}, "[[16384 32768]]"},                                     // outside
	} {
		if got := fmt.Sprint(gaps(0x4000, 0x4000, c.kept, page)); got != c.want {
			t.Errorf("gaps(%x) = %s, want %s", c.kept, got, c.want)
		}
	}
}
