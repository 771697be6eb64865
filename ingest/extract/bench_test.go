package extract

import (
	"context"
	"os"
	"strings"
	"testing"
)

// BenchmarkCorpus extracts every PDF of the shared corpus once per
// iteration and reports pages/s (pdfium started before the timer).
func BenchmarkCorpus(b *testing.B) {
	files := corpusFiles(b)
	datas := make([][]byte, len(files))
	for i, f := range files {
		d, err := os.ReadFile(f.path)
		if err != nil {
			b.Fatal(err)
		}
		datas[i] = d
	}
	ext := mustExtractor(b)
	ext.Extract(context.Background(), "warm.pdf", manyPages(b, 1))
	b.ReportAllocs()
	b.ResetTimer()
	pages := 0
	for b.Loop() {
		for i, d := range datas {
			if doc, err := ext.Extract(context.Background(), files[i].path, d); err == nil {
				pages += len(doc.Pages)
			}
		}
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkGeneratedPDF measures pdfium on a simple 100-page text PDF.
func BenchmarkGeneratedPDF(b *testing.B) {
	data := manyPages(b, 100)
	ext := mustExtractor(b)
	ext.Extract(context.Background(), "warm.pdf", data)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	n := 0
	for b.Loop() {
		if _, err := ext.Extract(context.Background(), "b.pdf", data); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(100*n)/b.Elapsed().Seconds(), "pages/s")
}

func BenchmarkCleanText(b *testing.B) {
	s := strings.Repeat("Cats are territo-\nrial animals; they ﬁnd   their way home.\r\n\n\n", 2000)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		CleanText(s)
	}
}
