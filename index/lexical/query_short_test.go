package lexical

import (
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
func withShortQueries(t *testing.T) {
	shortQueries = true
	t.Cleanup(func() { shortQueries = false })
}
