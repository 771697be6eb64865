package pdf

import (
	"fmt"
	"testing"
)

func TestSplitRuneLines(t *testing.T) {
	got := splitRuneLines([]rune("ab\r\n  \r\n cd \nef\rg"))
	want := []runeLine{{0, 2, 0, 1}, {8, 12, 9, 10}, {13, 15, 13, 14}, {16, 17, 16, 16}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("splitRuneLines = %v, want %v", got, want)
	}
}
