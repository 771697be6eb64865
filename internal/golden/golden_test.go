package golden

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCompareAndFixture(t *testing.T) {
	if Update() {
		t.Skip("checks comparing, which -update turns off")
	}
	path := filepath.Join(t.TempDir(), "case", "want.txt")
	write(t, path, []byte("hello\n"))
	Compare(t, path, []byte("hello\n"))
	if got := Fixture(t, path, func() []byte { return []byte("not without -update") }); string(got) != "hello\n" {
		t.Errorf("Fixture = %q, want the committed file", got)
	}
	r := &recorder{TB: t}
	Compare(r, path, []byte("changed\n"))
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "run go test -run TestCompareAndFixture -update to accept") ||
		!strings.Contains(r.errs[0], "changed") {
		t.Errorf("a difference reported as %q", r.errs)
	}
}
