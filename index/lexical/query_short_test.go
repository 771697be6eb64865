package lexical

import (
	"fmt"
	"strings"
	"testing"
)

// TestShortQueryScoresStopWords: a short query is scored by its stop
// words too ("Can I delete" finds the passage that asks it above one that
// says delete more often, and a query of stop words alone finds its
// passage), while passages' stop words do not count in their length, so
// a long query scores two passages that differ only by stop words alike.
func TestShortQueryScoresStopWords(t *testing.T) {
	withShortQueries(t)
	ix := New(DefaultConfig())
	ix.Add(1, "Can I delete a branch? Yes: git branch -d removes a merged branch.")
	ix.Add(2, "Deleting files: the rm command deletes files; rm -r deletes directories.")
	ix.Add(3, "To be or not to be, that is the question.")
	ix.Add(4, "Merged branches, remote tracking branches and tags are kept in the repository.")
	ix.Add(5, "Merged branches, remote tracking branches and tags are all kept in the repository as they were.")
	for _, c := range []struct {
		q    string
		want uint64
	}{
		{"Can I delete", 1},
		{"to be or not to be", 3},
	} {
		if rs := ix.SearchQuery(c.q, nil, 3); len(rs) == 0 || rs[0].ID != c.want {
			t.Errorf("SearchQuery(%q) = %v, want passage %d first", c.q, rs, c.want)
		}
	}
	long := "merged remote tracking branches tags repository kept"
	rs := ix.SearchQuery(long, nil, 5)
	if len(rs) < 2 || rs[0].Score != rs[1].Score {
		t.Errorf("SearchQuery(%q) = %v, want passages 4 and 5 scored alike (their stop words not counted in their length)", long, rs)
	}
}

// withShortQueries turns the short-query rule on for t (TestMain turns it
// off). Tests that use it must not run in parallel.
func withShortQueries(t testing.TB) {
	shortQueries = true
	t.Cleanup(func() { shortQueries = false })
}

// TestShortQueryDiscountsLengthLess: a short query (a heading) ranks a
// long passage that names it twice above a short one that names it once,
// scored with shortQueryB; a longer query over the same terms keeps the
// index's b and k1, which rank the short passage first.
func TestShortQueryDiscountsLengthLess(t *testing.T) {
	withShortQueries(t)
	filler := func(prefix string, n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return strings.Join(w, " ")
	}
	ix := New(DefaultConfig())
	ix.Add(1, "wait exit wait exit "+filler("l", 31)) // length 35
	ix.Add(2, "wait exit "+filler("s", 8))            // length 10
	ix.Add(3, filler("f", 45))                        // average length 30
	if rs := ix.SearchQuery("Waiting for exit", nil, 2); len(rs) != 2 || rs[0].ID != 1 {
		t.Errorf("short query: got %v, want the long passage 1 first", rs)
	}
	if rs := ix.SearchQuery("waiting exit zq1 zq2 zq3", nil, 2); len(rs) != 2 || rs[0].ID != 2 {
		t.Errorf("long query: got %v, want the short passage 2 first (the index's b and k1)", rs)
	}
}
