package library_test

import (
	"testing"

	"github.com/mcpvec/mcpvec/library"
)

func TestFileURL(t *testing.T) {
	for _, tc := range []struct {
		path string
		page int
		want string
	}{
		{"/home/me/papers/cats.pdf", 3, "file:///home/me/papers/cats.pdf#page=3"},
		{"/home/me/my notes #2?.md", 0, "file:///home/me/my%20notes%20%232%3F.md"},
		{"/tmp/100% é.pdf", 1, "file:///tmp/100%25%20%C3%A9.pdf#page=1"},
		{"relative/cats.pdf", 1, ""},
		{"", 0, ""},
	} {
		if got := library.FileURL(tc.path, tc.page); got != tc.want {
			t.Errorf("FileURL(%q, %d) = %q, want %q", tc.path, tc.page, got, tc.want)
		}
	}
}
