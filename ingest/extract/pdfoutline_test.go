package extract

import (
	"fmt"
	"strings"
	"testing"
)

// testBookmark is one entry of a test PDF's outline, listed in order with
// its level (1 = top); Page is 0-based.
type testBookmark struct {
	Level int
	Title string
	Page  int
}

// outline writes marks as an outline tree from object number root on and
// returns the next free object number (root when there are no marks).
func (w *pdfWriter) outline(tb testing.TB, root int, marks []testBookmark) int {
	if len(marks) == 0 {
		return root
	}
	num := func(i int) int { // object number of marks[i]; -1 is the root
		return root + 1 + i
	}
	parent := make([]int, len(marks))
	var children = map[int][]int{}
	var stack []int // indexes of open ancestors
	for i, m := range marks {
		for len(stack) > 0 && marks[stack[len(stack)-1]].Level >= m.Level {
			stack = stack[:len(stack)-1]
		}
		parent[i] = -1
		if len(stack) > 0 {
			parent[i] = stack[len(stack)-1]
		}
		children[parent[i]] = append(children[parent[i]], i)
		stack = append(stack, i)
	}
	kids := func(i int) string {
		c := children[i]
		if len(c) == 0 {
			return ""
		}
		return fmt.Sprintf(" /First %d 0 R /Last %d 0 R /Count %d", num(c[0]), num(c[len(c)-1]), len(c))
	}
	w.obj(root, "<< /Type /Outlines"+kids(-1)+" >>")
	for i, m := range marks {
		var b strings.Builder
		fmt.Fprintf(&b, "<< /Title %s /Parent %d 0 R", w.str(tb, num(i), m.Title), num(parent[i]))
		sib := children[parent[i]]
		for j, s := range sib {
			if s != i {
				continue
			}
			if j > 0 {
				fmt.Fprintf(&b, " /Prev %d 0 R", num(sib[j-1]))
			}
			if j+1 < len(sib) {
				fmt.Fprintf(&b, " /Next %d 0 R", num(sib[j+1]))
			}
		}
		fmt.Fprintf(&b, "%s /Dest [%d 0 R /XYZ 0 792 0] >>", kids(i), 6+2*m.Page)
		w.obj(num(i), b.String())
	}
	return num(len(marks))
}
