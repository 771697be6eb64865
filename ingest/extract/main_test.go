package extract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestMain turns the test binary into the fallback worker when the
// Extractor re-runs it (it sets WorkerEnv), as cmd/mcpvec does with its
// hidden "__extract-worker" subcommand.
func TestMain(m *testing.M) {
	if os.Getenv(WorkerEnv) == "1" {
		if err := RunWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var (
	sharedOnce sync.Once
	sharedExt  *Extractor
	sharedErr  error
)

// testCacheDir keeps the wasm compilation cache across test runs so only
// the first run on a machine pays the compile.
func testCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "mcpvec", "wasm")
}

// testOptions are the options of the shared test extractor. OCR is off so
// that results do not depend on whether tesseract is installed; the OCR
// tests turn it on.
func testOptions() Options {
	return Options{CacheDir: testCacheDir(), WorkerCommand: []string{os.Args[0]}, OCR: OCRNever}
}

// newExtractor returns an Extractor with opts, closed on cleanup.
func newExtractor(tb testing.TB, opts Options) *Extractor {
	tb.Helper()
	e, err := New(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// mustExtract extracts data (named name) with the shared extractor and
// fails t on an error.
func mustExtract(t testing.TB, name string, data []byte) *Document {
	t.Helper()
	doc, err := mustExtractor(t).Extract(context.Background(), name, data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// mustExtractor returns an Extractor shared by the tests of this package,
// so the pdfium module is loaded once per test binary.
func mustExtractor(tb testing.TB) *Extractor {
	tb.Helper()
	sharedOnce.Do(func() {
		sharedExt, sharedErr = New(context.Background(), testOptions())
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return sharedExt
}
