package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

// BenchmarkListingRead reads what the library page needs from the library
// MCPVEC_LISTING_LIBRARY names (a copy is upgraded first): every record
// (Documents, what the page read before schema 4), every short row
// (AllRows: an order other than title, or a filter) and the first page of
// 200 in title order (TitlePage: the page's first view). See
// docs/benchmarks/web-page.md.
func BenchmarkListingRead(b *testing.B) {
	src := os.Getenv("MCPVEC_LISTING_LIBRARY")
	if src == "" {
		b.Skip("MCPVEC_LISTING_LIBRARY is not set")
	}
	path := filepath.Join(b.TempDir(), "lib.db")
	copyFile(b, src, path)
	db, err := store.Open(path, &store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.Run("Documents", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Documents(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AllRows", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := db.AllRows(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("TitlePage", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := db.TitlePage(0, 200, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}
