package chunk

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/internal/cputime"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvec/mcpvec/analysis"
)

// checkChunks asserts every invariant Split promises.
func checkChunks(t testing.TB, text string, pages []int, opts Options, chunks []Chunk) {
	t.Helper()
	covered := 0 // text[:covered] is known to be covered
	boundary := map[int]bool{len(text): true}
	for i := 0; i < len(text); {
		boundary[i] = true
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	for i, c := range chunks {
		if c.Index != i {
			t.Fatalf("chunk %d has Index %d", i, c.Index)
		}
		if c.Start < 0 || c.End > len(text) || c.Start >= c.End {
			t.Fatalf("chunk %d: bad range [%d,%d) in text of %d bytes", i, c.Start, c.End, len(text))
		}
		if c.Text != text[c.Start:c.End] {
			t.Fatalf("chunk %d: Text differs from text[%d:%d]", i, c.Start, c.End)
		}
		if !boundary[c.Start] || !boundary[c.End] {
			t.Fatalf("chunk %d: [%d,%d) cuts a UTF-8 sequence", i, c.Start, c.End)
		}
		if r, _ := utf8.DecodeRuneInString(c.Text); unicode.IsSpace(r) {
			t.Fatalf("chunk %d starts with space: %q", i, c.Text)
		}
		if r, _ := utf8.DecodeLastRuneInString(c.Text); unicode.IsSpace(r) {
			t.Fatalf("chunk %d ends with space: %q", i, c.Text)
		}
		if n := analysis.EstimateTokens(c.Text); n > opts.Size {
			t.Fatalf("chunk %d: %d tokens > size %d: %q", i, n, opts.Size, c.Text)
		}
		if i > 0 {
			prev := chunks[i-1]
			if c.Start <= prev.Start || c.End <= prev.End {
				t.Fatalf("chunk %d [%d,%d) does not advance past chunk %d [%d,%d)", i, c.Start, c.End, i-1, prev.Start, prev.End)
			}
			if c.Start < prev.End {
				if n := analysis.EstimateTokens(text[c.Start:prev.End]); n > opts.Overlap {
					t.Fatalf("chunk %d overlaps the previous by %d tokens > %d", i, n, opts.Overlap)
				}
			}
		}
		if gap := text[covered:max(covered, c.Start)]; strings.TrimSpace(gap) != "" {
			t.Fatalf("text before chunk %d not covered: %q", i, gap)
		}
		covered = max(covered, c.End)
		if want := naivePage(pages, c.Start); c.PageStart != want {
			t.Fatalf("chunk %d: PageStart %d, want %d", i, c.PageStart, want)
		}
		if want := naivePage(pages, c.End-1); c.PageEnd != want {
			t.Fatalf("chunk %d: PageEnd %d, want %d", i, c.PageEnd, want)
		}
	}
	if rest := text[covered:]; strings.TrimSpace(rest) != "" {
		t.Fatalf("text after the last chunk not covered: %q", rest)
	}
}

// naivePage is the reference for pageOf: the last page starting at or before off.
func naivePage(pages []int, off int) int {
	page := 1
	for i, s := range pages {
		if s <= off {
			page = i + 1
		}
	}
	return page
}

func mustSplit(t testing.TB, text string, pages []int, opts Options) []Chunk {
	t.Helper()
	chunks, err := Split(text, pages, opts)
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	checkChunks(t, text, pages, opts, chunks)
	return chunks
}

func texts(chunks []Chunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c.Text)
	}
	return out
}

func TestSplitExact(t *testing.T) {
	tests := []struct {
		name string
		text string
		opts Options
		want []string
	}{
		{"empty", "", Options{Size: 10}, nil},
		{"only space", " \n\t\n ", Options{Size: 10}, nil},
		{"short", "  Cats like homes.\n", Options{Size: 10}, []string{"Cats like homes."}},
		{
			"paragraph beats later sentence",
			"One two three four five six.\n\nSeven eight nine. Ten eleven twelve thirteen.",
			Options{Size: 12},
			[]string{"One two three four five six.", "Seven eight nine. Ten eleven twelve thirteen."},
		},
		{
			"sentence beats later word",
			"One two three four five six. Seven eight nine ten eleven twelve.",
			Options{Size: 10},
			[]string{"One two three four five six.", "Seven eight nine ten eleven twelve."},
		},
		{
			"abbreviation is not a sentence end",
			"See Fig. Two and three and four. Five six seven eight nine ten.",
			Options{Size: 10},
			[]string{"See Fig. Two and three and four.", "Five six seven eight nine ten."},
		},
		{
			"overlap repeats the previous sentence",
			"Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu.",
			Options{Size: 10, Overlap: 5},
			[]string{"Alpha beta gamma. Delta epsilon zeta.", "Delta epsilon zeta. Eta theta iota.", "Eta theta iota. Kappa lambda mu."},
		},
		{
			"CJK cuts after a full stop",
			"猫很可爱。狗很忠诚。鸟会唱歌。",
			Options{Size: 8},
			[]string{"猫很可爱。", "狗很忠诚。", "鸟会唱歌。"},
		},
		{
			"a long unspaced token is not cut when a space is in reach",
			"Hi there a,b,c,d,e,f,g,h,i,j,k,l,m", // 2 + 25 tokens
			Options{Size: 26},
			[]string{"Hi there", "a,b,c,d,e,f,g,h,i,j,k,l,m"},
		},
		{
			"long word is cut inside",
			"abcdefghijklmnopqrstuvwxyz",
			Options{Size: 4},
			[]string{"abcdefghijklmnop", "qrstuvwxyz"}, // later letters of a word cost more
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(mustSplit(t, tt.text, nil, tt.opts))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestSplitOptionsErrors(t *testing.T) {
	for _, o := range []Options{{Size: 0}, {Size: MinSize - 1}, {Size: 10, Overlap: -1}, {Size: 10, Overlap: 10}, {Size: MaxSize + 1}} {
		if _, err := Split("some text", nil, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Split with %+v: err = %v, want ErrInvalidOptions", o, err)
		}
	}
	for _, p := range [][]int{{1}, {0, 5, 3}, {0, 100}} {
		if _, err := Split("some text", p, DefaultOptions()); !errors.Is(err, ErrInvalidPages) {
			t.Errorf("Split with pages %v: err = %v, want ErrInvalidPages", p, err)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("DefaultOptions().Validate() = %v", err)
	}
}

func TestSplitPages(t *testing.T) {
	page := func(n int) string {
		return strings.Repeat(fmt.Sprintf("Page %d sentence goes here. ", n), 5) + "\n\n"
	}
	text := page(1) + page(2) + page(3)
	starts := []int{0, len(page(1)), len(page(1)) + len(page(2)), len(text)} // page 4 is empty
	chunks := mustSplit(t, text, starts, Options{Size: 40, Overlap: 8})
	if len(chunks) < 3 {
		t.Fatalf("got %d chunks, want several", len(chunks))
	}
	spanning := 0
	for _, c := range chunks {
		if c.PageEnd > c.PageStart {
			spanning++
		}
		if c.PageStart < 1 || c.PageEnd > 3 {
			t.Errorf("chunk %d: pages %d-%d outside 1-3", c.Index, c.PageStart, c.PageEnd)
		}
	}
	if spanning == 0 {
		t.Errorf("no chunk spans a page break; the test text should produce one")
	}
	for _, c := range mustSplit(t, text, nil, DefaultOptions()) {
		if c.PageStart != 1 || c.PageEnd != 1 {
			t.Errorf("nil pages: chunk %d on pages %d-%d, want 1-1", c.Index, c.PageStart, c.PageEnd)
		}
	}
}

// TestSplitProse checks sizes on realistic prose without paragraph breaks:
// every chunk but the last is at least half full and none is over.
func TestSplitProse(t *testing.T) {
	text := randomProse(rand.New(rand.NewPCG(1, 2)), 5000, false)
	text = strings.ReplaceAll(text, "x", "") // drop the over-long words
	for _, opts := range []Options{{Size: 64, Overlap: 8}, DefaultOptions(), {Size: 512, Overlap: 0}} {
		chunks := mustSplit(t, text, nil, opts)
		if n := analysis.EstimateTokens(chunks[len(chunks)-1].Text); 4*n < opts.Size {
			t.Errorf("%+v: last chunk has %d tokens, less than a quarter of %d", opts, n, opts.Size)
		}
		for _, c := range chunks[:len(chunks)-1] {
			if n := analysis.EstimateTokens(c.Text); 2*n < opts.Size {
				t.Errorf("%+v: chunk %d has %d tokens, less than half of %d", opts, c.Index, n, opts.Size)
			}
			if last, _ := utf8.DecodeLastRuneInString(c.Text); !strings.ContainsRune(".!?…", last) && opts.Size >= 256 {
				t.Errorf("%+v: chunk %d does not end a sentence: ...%q", opts, c.Index, c.Text[max(0, len(c.Text)-30):])
			}
		}
	}
}

func TestSplitNoSpaces(t *testing.T) {
	cjk := strings.Repeat("猫是一种小型食肉哺乳动物长期以来一直被人类驯养", 40) // no punctuation at all
	chunks := mustSplit(t, cjk, nil, Options{Size: 50, Overlap: 10})
	if len(chunks) < 10 {
		t.Errorf("CJK: got %d chunks, want >= 10", len(chunks))
	}
	junk := strings.Repeat("a,b;", 500) + strings.Repeat("\xff", 300) + strings.Repeat("7", 900)
	mustSplit(t, junk, nil, Options{Size: 16, Overlap: 5})
}

func TestSplitDeterministic(t *testing.T) {
	text := randomProse(rand.New(rand.NewPCG(3, 4)), 2000, true)
	a := mustSplit(t, text, nil, DefaultOptions())
	b := mustSplit(t, text, nil, DefaultOptions())
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two runs differ:\n%s", diff)
	}
}

// TestSplitRandom is a property check over many random documents and options.
func TestSplitRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		text := randomProse(rng, rng.IntN(400), rng.IntN(2) == 0)
		size := MinSize + rng.IntN(80)
		opts := Options{Size: size, Overlap: rng.IntN(size)}
		mustSplit(t, text, randomPages(rng, len(text)), opts)
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("Cats are attached to their homes. They dislike moving.\n\nDogs differ.", 8, 2, 3)
	f.Add("猫很可爱。狗很忠诚。", 4, 1, 2)
	f.Add("abcdefghijklmnopqrstuvwxyz0123456789", 4, 3, 1)
	f.Add("a\xffb\xfe c\u00a0d\u2029e", 5, 0, 4)
	f.Add("", 10, 1, 1)
	f.Add("FAQ\n\nQ: Does it lock?\nA: Yes.\n\nWhy?\n\nBecause.\n**Bold**\nDone?", 6, 1, 3)
	f.Fuzz(func(t *testing.T, text string, size, overlap, npages int) {
		opts := Options{Size: MinSize + abs(size)%300}
		opts.Overlap = abs(overlap) % opts.Size
		pages := []int{0}
		for i := 1; i < abs(npages)%8; i++ {
			pages = append(pages, len(text)*i/(abs(npages)%8))
		}
		chunks, err := Split(text, pages, opts)
		if err != nil {
			t.Fatalf("Split: %v", err)
		}
		checkChunks(t, text, pages, opts, chunks)
		var heads []Heading // one at each page start, levels 1 and 2 in turn
		for i, p := range pages {
			heads = append(heads, Heading{Level: 1 + i%2, Title: text[p:min(len(text), p+5)], Offset: p})
		}
		chunks, err = SplitHeadings(text, pages, heads, opts)
		if err != nil {
			t.Fatalf("SplitHeadings: %v", err)
		}
		checkChunks(t, text, pages, opts, chunks)
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1) // never negative, even for math.MinInt
	}
	return n
}

// randomProse builds sentences from a small vocabulary with numbers,
// punctuation, hyphenated words, an occasional long token and, if paras,
// paragraph breaks.
func randomProse(rng *rand.Rand, words int, paras bool) string {
	vocab := strings.Fields("the cat dog home attach moving studies show that owners voice respond " +
		"hematopoiesis S100A9/CD33 --leak-check=full BZ2_bzDecompressInit e.g. Fig. 3.5% (n = 17) " +
		"猫 研究 naïve Кошка — … “quoted”")
	var b strings.Builder
	capital := true
	for i := 0; i < words; i++ {
		w := vocab[rng.IntN(len(vocab))]
		if capital && w[0] >= 'a' && w[0] <= 'z' {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		if rng.IntN(200) == 0 {
			w = strings.Repeat("x", 1+rng.IntN(3000))
		}
		b.WriteString(w)
		switch r := rng.IntN(30); {
		case r == 0 && paras:
			b.WriteString(".\n\n")
			capital = true
		case r < 3:
			b.WriteString(". ")
			capital = true
		case r == 3:
			b.WriteString(",\n")
			capital = false
		default:
			b.WriteString(" ")
			capital = false
		}
	}
	return b.String()
}

func randomPages(rng *rand.Rand, n int) []int {
	if rng.IntN(3) == 0 {
		return nil
	}
	pages := []int{0}
	for i := rng.IntN(6); i > 0; i-- {
		pages = append(pages, min(n, pages[len(pages)-1]+rng.IntN(n/3+1)))
	}
	return pages
}

func BenchmarkSplit(b *testing.B) {
	for _, words := range []int{1_000, 100_000} {
		text := randomProse(rand.New(rand.NewPCG(7, 8)), words, true)
		text = strings.ReplaceAll(text, "x", "") // over-long words are rare in real text
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			chunks := 0
			c0 := cputime.Process()
			for b.Loop() {
				c, err := Split(text, nil, DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				chunks += len(c)
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
			b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func BenchmarkEstimateTokens(b *testing.B) {
	text := randomProse(rand.New(rand.NewPCG(9, 10)), 10_000, true)
	text = strings.ReplaceAll(text, "x", "")
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	c0 := cputime.Process()
	for b.Loop() {
		analysis.EstimateTokens(text)
	}
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
}
