// Package golden compares what a test produced with a file committed under
// testdata, and rewrites the file instead when the test binary runs with
// -update (go test -run TestX -update). It is a test kit: importing it
// registers the -update flag, so a package's tests must not define their
// own. Its functions are safe for concurrent use by parallel tests as long
// as they write different paths.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files and fixtures under testdata instead of comparing with them")

// Update reports whether the run was asked to rewrite golden files.
func Update() bool { return *update }

// write writes data to path, creating its folder; it fails tb on error.
func write(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Compare reports an error on tb unless got equals the content of the file
// at path; with -update it first writes got there. A missing file is fatal.
// The messages say which command accepts a change.
func Compare(tb testing.TB, path string, got []byte) {
	tb.Helper()
	if *update {
		write(tb, path, got)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run %s)", err, hint(tb))
	}
	if !bytes.Equal(got, want) {
		tb.Errorf("%s differs (run %s to accept):\n--- got\n%s\n--- want\n%s", path, hint(tb), got, want)
	}
}

// hint is the command that rewrites the golden files of tb's test.
func hint(tb testing.TB) string {
	top, _, _ := strings.Cut(tb.Name(), "/")
	return "go test -run " + top + " -update"
}

// Fixture returns the committed input file at path; with -update it first
// rewrites the file with what gen returns (gen nil: a file made elsewhere,
// never rewritten). A missing file is fatal.
func Fixture(tb testing.TB, path string, gen func() []byte) []byte {
	tb.Helper()
	if *update && gen != nil {
		write(tb, path, gen())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run %s)", err, hint(tb))
	}
	return data
}
