// Package pdf reads PDFs and images for package extract: the text layer
// of every page with pdfium, its bookmarks as headings, and, with OCR, the
// text of scanned pages and image files by tesseract.
//
// PDFs are read by pdfium compiled to WebAssembly
// (github.com/klippa-app/go-pdfium in webassembly mode, running in wazero,
// pure Go). The document is passed as bytes; no host directory is mounted
// and pdfium's stdout is discarded. When pdfium cannot open a file at all
// (not for encrypted files), Extract may retry with
// github.com/ledongthuc/pdf in a separate worker process (Config.WorkerCommand,
// whose main calls RunWorker), because that library can loop forever,
// panic or exhaust memory; the process is killed at the deadline or when
// its resident memory passes Config.MemoryLimit.
//
// Config is what this package needs of extract.Options, defaults filled
// in by extract. Errors wrap the sentinels extract re-exports
// (ErrEncrypted, ErrMalformed, ErrTimeout, ErrTooLarge, ErrNoText,
// ErrExpansion) or ctx.Err().
//
// # Caveats
//
//   - Concurrency: Engine, OCR, Extract, Image and Fallback are safe for
//     concurrent use. PDFs run in a pool of at most Config.MaxInstances
//     pdfium instances (about 55 MiB each, up to Config.MemoryLimit); a
//     call waits for a free instance or for its context. Instances are
//     reused across documents, except that an instance is destroyed after
//     any error, failed page or input over 16 MiB, so state or grown memory
//     left by a broken or huge file never reaches the next one.
//   - Start-up: the first PDF compiles the 5 MB pdfium module, about 10 s on
//     a cold machine; wazero's compilation cache in Config.CacheDir makes
//     later starts take under a second. If the cache directory cannot be
//     created the compile is repeated on every start (a warning is logged).
//   - Time: a PDF page is stopped after Config.PageTimeout and a document
//     after Config.DocTimeout by killing the pdfium instance (wazero
//     interrupts the running WebAssembly); the call returns ErrTimeout and
//     the partial text is discarded. The fallback worker gets its own
//     DocTimeout, so a file pdfium rejects can take up to twice as long.
//   - Memory: a reused pdfium instance keeps the WebAssembly memory it grew
//     to (at most Config.MemoryLimit) until it is retired or the
//     Engine is closed. Measured: a process held 57 MiB after its first
//     PDF and 214 MiB after the 102 files of the shared test corpus.
//   - Panics: Extract recovers panics from pdfium and returns
//     ErrMalformed; the fallback worker recovers them per page, and a crash
//     of the worker process is ErrMalformed too.
//   - Output: nothing is written to stdout. pdfium's stderr and the worker's
//     stderr go to log/slog at debug level. RunWorker points os.Stdout at
//     os.Stderr while it extracts, because its stdout is the result pipe.
//   - Pages: a PDF page that fails to load is kept as an empty page so page
//     numbers stay right; only when every page fails is the file malformed.
//     Text order is pdfium's reading order; multi-column layouts, tables and
//     vertical writing may come out in an unnatural order.
//   - OCR: with Config.OCR auto (and tesseract on PATH) or always, a PDF
//     page with under 50 visible characters whose content includes an
//     image or form covering a quarter of the page is rendered grey by
//     pdfium (at Config.OCRDPI, lower for huge pages, not at all below 50
//     DPI) and read by a tesseract process per page: PNG on stdin, text on
//     stdout, OMP_THREAD_LIMIT=1, killed after PageTimeout or when ctx
//     ends. The OCR text replaces the page's text layer only when it has
//     more words. Rendered pages are held in memory (about 100-300 KB each)
//     until pdfium is released, then read in parallel, at most
//     Config.OCRWorkers processes per OCR engine; the OCR of a document has
//     its own DocTimeout, so a scanned file can take up to twice as long.
//     A page whose OCR fails keeps its text layer (logged at debug level).
//     PNG, JPEG and TIFF files are read the same way, as one page (a
//     multi-page TIFF's text comes out as one page); an image whose header
//     declares over 150 Mpx is ErrTooLarge and never reaches tesseract,
//     whose memory is otherwise not limited. Without
//     tesseract such files are ErrNoText with a message saying how to
//     install it. Tesseract's quality depends on the scan: skew of a few
//     degrees is corrected, handwriting and photos of text are not read well.
//   - Paragraphs: pdfium reports lines, not paragraphs. A blank line is
//     inserted where the gap between two baselines exceeds 1.4 times the
//     page's usual line spacing, or the text jumps upwards (a new column).
//     This is a heuristic: headings, captions and footnotes also get blank
//     lines around them, and pages with no regular spacing get none.
package pdf
