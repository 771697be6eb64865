package embed

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestOpenAIEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		s        string
		min, max int
	}{
		{"", 1, 1},
		{"hello", 3, 3},       // one word: ceil(5/2)
		{"hello world", 6, 7}, // two words, one space
		{"日本語", 9, 9},         // non-ASCII: its UTF-8 bytes
		{strings.Repeat("ab ", 100), 120, 130},
	} {
		if got := openaiEstimateTokens(tc.s); got < tc.min || got > tc.max {
			t.Errorf("estimate(%q) = %d, want %d..%d", tc.s, got, tc.min, tc.max)
		}
	}
	// Conservative: never under the byte length / 4 that English averages.
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50)
	if got := openaiEstimateTokens(text); got < len(text)/4 {
		t.Errorf("estimate %d under len/4 = %d", got, len(text)/4)
	}
}

func TestOpenAISplit(t *testing.T) {
	count := openaiEstimateTokens
	for _, text := range []string{
		strings.Repeat("word ", 1000),
		strings.Repeat("日本語のテキスト", 300),
		strings.Repeat("x", 5000), // no whitespace at all
		"short",
	} {
		for _, limit := range []int{1, 7, 100, 8191} {
			pieces := openaiSplit(text, limit, count)
			if got := strings.Join(pieces, ""); got != text {
				t.Fatalf("limit %d: pieces do not rebuild the text", limit)
			}
			for _, p := range pieces {
				if !utf8.ValidString(p) {
					t.Fatalf("limit %d: piece cut inside a rune", limit)
				}
				if c := count(p); c > limit && utf8.RuneCountInString(p) > 1 {
					t.Fatalf("limit %d: piece of %d tokens (%q...)", limit, c, p[:min(len(p), 20)])
				}
			}
			if limit >= 100 && len(pieces) > 1 {
				// Cuts fall after whitespace when there is some.
				if strings.Contains(text, " ") && !strings.HasSuffix(pieces[0], " ") {
					t.Errorf("limit %d: cut mid-word: %q", limit, pieces[0][len(pieces[0])-10:])
				}
				// And pieces are not wastefully small.
				if c := count(pieces[0]); c < limit/2 {
					t.Errorf("limit %d: first piece only %d tokens", limit, c)
				}
			}
		}
	}
}

func TestOpenAIPlan(t *testing.T) {
	var pieces []openaiPiece
	for i := range 50 {
		pieces = append(pieces, openaiPiece{tokens: 1 + i%9, owner: i})
	}
	batches := openaiPlan(pieces, 4, 15)
	next := 0
	for _, b := range batches {
		if b[0] != next || b[1] <= b[0] {
			t.Fatalf("batch %v does not continue at %d", b, next)
		}
		tokens := 0
		for _, p := range pieces[b[0]:b[1]] {
			tokens += p.tokens
		}
		if b[1]-b[0] > 4 || tokens > 15 {
			t.Errorf("batch %v: %d inputs, %d tokens; limits 4, 15", b, b[1]-b[0], tokens)
		}
		// Greedy: the next piece would not have fit.
		if b[1] < len(pieces) && b[1]-b[0] < 4 && tokens+pieces[b[1]].tokens <= 15 {
			t.Errorf("batch %v closed early", b)
		}
		next = b[1]
	}
	if next != len(pieces) {
		t.Errorf("batches end at %d of %d", next, len(pieces))
	}
}

func TestOpenAIParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{http.Header{}, 0},
	} {
		if got := openaiParseRetryAfter(tc.h, now); got != tc.want {
			t.Errorf("parse(%v) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func TestOpenAIBackoff(t *testing.T) {
	base, maxDelay := 100*time.Millisecond, time.Second
	for n := range 40 {
		d := openaiBackoff(n, base, maxDelay, 0)
		full := min(base<<min(n, 30), maxDelay)
		if d < full/2 || d > full {
			t.Errorf("backoff(%d) = %v, want in [%v, %v]", n, d, full/2, full)
		}
	}
	if d := openaiBackoff(0, base, maxDelay, 3*time.Second); d < 3*time.Second || d > 3300*time.Millisecond+time.Nanosecond {
		t.Errorf("backoff with Retry-After 3s = %v", d)
	}
}

func TestOpenAILRU(t *testing.T) {
	c := newOpenaiLRU(2)
	c.put("a", []float32{1})
	c.put("b", []float32{2})
	if _, ok := c.get("a"); !ok { // a is now most recent
		t.Fatal("a missing")
	}
	c.put("c", []float32{3}) // evicts b
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	if v, ok := c.get("a"); !ok || v[0] != 1 {
		t.Errorf("a = %v, %v", v, ok)
	}
	var off *openaiLRU = newOpenaiLRU(-1)
	off.put("x", []float32{1})
	if _, ok := off.get("x"); ok {
		t.Error("disabled cache returned a value")
	}
}

func TestOpenAIServerCapsBatch(t *testing.T) {
	// A server that silently answers only its first 4 inputs per request.
	f := newOpenaiFakeServer(t, "openai", 8)
	f.hook = func(n int, req openaiFakeRequest, w http.ResponseWriter, _ *http.Request) bool {
		items := f.embeddings(req)
		f.answer(w, req, items[:min(4, len(items))])
		return true
	}
	o := newTestOpenAI(t, f.BaseURL(), func(c *OpenAIConfig) { c.SkipProbe = true; c.MaxRetries = 1 })
	in := openaiTexts(18)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	openaiAssertVecs(t, in, got, 8)
	if n := len(f.requests()); n != 5 {
		t.Errorf("requests = %d, want 5 (4 answered each time)", n)
	}
	if r := o.Usage().Retries; r != 0 {
		t.Errorf("retries = %d; progress must not spend the retry budget", r)
	}
}
