package chunk

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplitStreamsLikeWhole checks that cutting passages while the text
// is read gives exactly the passages of reading it all first, on long
// random texts with headings, pages, long words and whitespace runs, at
// sizes that make the window slide and drop atoms many times.
func TestSplitStreamsLikeWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 11))
	for i := range 30 {
		text := randomProse(rng, 2000+rng.IntN(8000), true)
		if i%3 == 0 {
			text = strings.ReplaceAll(text, ". ", "."+strings.Repeat(" ", rng.IntN(300))+"\n\n")
		}
		size := MinSize + rng.IntN(200)
		opts := Options{Size: size, Overlap: rng.IntN(size)}
		if i%5 == 0 {
			opts = DefaultOptions()
		}
		var heads []Heading
		for off := rng.IntN(500); off < len(text); off += 1 + rng.IntN(3000) {
			heads = append(heads, Heading{Level: 1 + rng.IntN(3), Title: "h", Offset: off})
		}
		pages := randomPages(rng, len(text))
		got, err := SplitHeadings(text, pages, heads, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkChunks(t, text, pages, opts, got)
		if diff := cmp.Diff(split(text, pages, heads, opts, true), got); diff != "" {
			t.Fatalf("text %d (%d bytes, %+v): streamed passages differ (-whole +streamed):\n%s", i, len(text), opts, diff)
		}
	}
}

// TestSplitMemory checks that splitting holds a window of the text's atoms,
// not all of them: 32 MiB of prose is split with a live heap of a few
// times the passages it returns (the whole-text splitter held about 12
// bytes of atoms per byte of text, here 380 MB).
func TestSplitMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("splits 32 MiB")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < 32<<20 {
		b.WriteString(randomProse(rng, 3000, true))
		b.WriteString("\n\n")
	}
	text := b.String()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	chunks, err := Split(text, nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d MiB of text, %d passages, %d MB allocated", len(text)>>20, len(chunks), alloc>>20)
	if alloc > uint64(len(text)) {
		t.Errorf("allocated %d MB for %d MiB of text, want less than the text", alloc>>20, len(text)>>20)
	}
}
