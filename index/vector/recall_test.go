package vector

import "testing"

// TestRecallClustered is the regression guard for graph quality: it fails if
// recall@10 against the exact scan drops below 0.95 on clustered data (the
// int8 walk with float32 re-scoring measures 0.9995 and 0.9895, as the
// float32 walk did).
func TestRecallClustered(t *testing.T) {
	for _, m := range []Metric{Cosine, Dot} {
		t.Run(m.String(), func(t *testing.T) {
			d := clustered(3000, 200, 48, 30, 7)
			x := mustBuild(t, d, Config{Metric: m, Seed: 3})
			want := truth(t, x, d.queries, 10)
			got := searchAll(t, x, d.queries, 10, x.Config().EfSearch)
			r := recall(want, got)
			t.Logf("recall@10 = %.4f", r)
			if r < 0.95 {
				t.Fatalf("recall@10 = %.4f, want >= 0.95", r)
			}
		})
	}
}
