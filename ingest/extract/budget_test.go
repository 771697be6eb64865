package extract

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExpansionBombs extracts issue 35's amplification bombs, each built
// here: every one must fail with ErrExpansion, quickly and within bounded
// memory (before the budget the XLSX one passed 2.5 GB in 5 s and kept
// growing towards 70 GB).
func TestExpansionBombs(t *testing.T) {
	bombs, err := extracttest.Bombs()
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), Options{OCR: OCRNever})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, b := range bombs {
		t.Run(b.Name, func(t *testing.T) {
			var doc *Document
			var err error
			peak, took := measure(func() { doc, err = e.Extract(context.Background(), b.Name, b.Data) })
			t.Logf("%s: %d KiB file, peak heap %d MB, %s: %v", b.Name, len(b.Data)>>10, peak>>20, took.Round(time.Millisecond), err)
			if !errors.Is(err, ErrExpansion) {
				t.Fatalf("Extract = %d pages, err %v; want ErrExpansion", pageCount(doc), err)
			}
			if !strings.Contains(err.Error(), "expands past") {
				t.Errorf("error %q does not say what it expands past", err)
			}
			if peak > 200<<20 {
				t.Errorf("peak heap %d MB, want under 200 MB", peak>>20)
			}
			if took > 20*time.Second { // about 2 s each without -race; before the budget, minutes or out of memory
				t.Errorf("took %s, want under 20s", took)
			}
		})
	}
}

// measure runs fn and returns the peak heap it reached (HeapInuse sampled
// every 5 ms) and its duration.
func measure(fn func()) (peak uint64, took time.Duration) {
	runtime.GC()
	done, sampled := make(chan struct{}), make(chan uint64)
	go func() {
		var m runtime.MemStats
		var top uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			top = max(top, m.HeapInuse)
			select {
			case <-done:
				sampled <- top
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	fn()
	took = time.Since(start)
	close(done)
	return <-sampled, took
}

func pageCount(d *Document) int {
	if d == nil {
		return 0
	}
	return len(d.Pages)
}

// TestExpansionBudgetKeepsRealFiles checks that the budget refuses nothing
// a real document produces: repeated cells and rows within the repeat
// bound, and a plain-text file of the largest size accepted.
func TestExpansionBudgetKeepsRealFiles(t *testing.T) {
	e, err := New(context.Background(), Options{OCR: OCRNever})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ods, err := extracttest.ODSBomb(3, 100)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := e.Extract(context.Background(), "small.ods", ods)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(doc.Pages[0], " | "), 3*(odsRepeatLimit-1); got != want { // 3 rows of 64 cells
		t.Errorf("ods with a row repeated 3 times: %d cell separators, want %d:\n%.300s", got, want, doc.Pages[0])
	}
	text := []byte(strings.Repeat(extracttest.Words(1<<20, 4)+"\n", 8))
	if _, err := e.Extract(context.Background(), "big.txt", text); err != nil {
		t.Errorf("8 MiB text file: %v", err)
	}
}

// odsRepeatLimit is how often office repeats an ODF cell or row with text
// (its maxRepeatedCells).
const odsRepeatLimit = 64
