package analysis

import (
	"slices"
	"strings"
	"testing"
)

// TestWords: lower-cased runs of letters and digits, split at punctuation,
// without stop words or runs over 64 bytes.
func TestWords(t *testing.T) {
	in := "The BZ2_bzDecompress failed, ÉTÉ naïve " + strings.Repeat("x", 65) + " and 42"
	want := []string{"bz2", "bzdecompress", "failed", "été", "naïve", "42"}
	if got := Words(in); !slices.Equal(got, want) {
		t.Errorf("Words(%q) = %q, want %q", in, got, want)
	}
}
