// Package extract turns the bytes of a PDF, plain-text, Markdown or HTML
// file into cleaned text, one string per page.
//
// PDFs are read by pdfium compiled to WebAssembly
// (github.com/klippa-app/go-pdfium in webassembly mode, running in wazero,
// pure Go). The document is passed as bytes; no host directory is mounted
// and pdfium's stdout is discarded. When pdfium cannot open a file at all
// (not for encrypted files), the Extractor may retry with
// github.com/ledongthuc/pdf in a separate worker process (Options.WorkerCommand,
// whose main calls RunWorker), because that library can loop forever,
// panic or exhaust memory; the process is killed at the deadline or when
// its resident memory passes Options.MemoryLimit.
//
// Text from every format goes through CleanText: NFKC, control characters
// removed, words hyphenated across line ends joined, whitespace collapsed,
// blank lines (paragraph breaks) kept. A result without visible characters
// is ErrNoText and one that is mostly replacement or unassigned characters
// is ErrGarbage.
//
// # Caveats
//
//   - Concurrency: an Extractor is safe for concurrent use. PDFs run in a pool
//     of at most Options.MaxInstances pdfium instances (about 55 MiB each, up
//     to Options.MemoryLimit); a call waits for a free instance or for its
//     context. Instances are reused across documents, except that
//     an instance is destroyed after any error, failed page or input over
//     16 MiB, so state or grown memory left by a broken or huge file never
//     reaches the next one.
//   - Start-up: the first PDF compiles the 5 MB pdfium module, about 10 s on
//     a cold machine; wazero's compilation cache in Options.CacheDir makes
//     later starts take under a second. If the cache directory cannot be
//     created the compile is repeated on every start (a warning is logged).
//   - Time: a PDF page is stopped after Options.PageTimeout and a document
//     after Options.DocTimeout by killing the pdfium instance (wazero
//     interrupts the running WebAssembly); the call returns ErrTimeout and
//     the partial text is discarded. The fallback worker gets its own
//     DocTimeout, so a file pdfium rejects can take up to twice as long.
//   - Memory: a reused pdfium instance keeps the WebAssembly memory it grew
//     to (at most Options.MemoryLimit) until it is retired or the
//     Extractor is closed. Measured: a process held 57 MiB after its first
//     PDF and 214 MiB after the 102 files of the shared test corpus.
//   - Panics: Extract recovers panics from the PDF libraries and returns
//     ErrMalformed; the fallback worker recovers them per page, and a crash
//     of the worker process is ErrMalformed too.
//   - Output: nothing is written to stdout. pdfium's stderr and the worker's
//     stderr go to log/slog at debug level. RunWorker points os.Stdout at
//     os.Stderr while it extracts, because its stdout is the result pipe.
//   - Pages: a PDF page that fails to load is kept as an empty page so page
//     numbers stay right; only when every page fails is the file malformed.
//     Text order is pdfium's reading order; multi-column layouts, tables and
//     vertical writing may come out in an unnatural order.
//   - Hyphenation: "exam-\nple" becomes "example" whenever a line ends in a
//     letter and a hyphen and the next starts in lower case, so a compound
//     such as "well-\nknown" also loses its hyphen.
//   - Plain text that is not valid UTF-8 (and has no UTF-16/32 byte order
//     mark) is decoded as Windows-1252, a superset of Latin-1.
//   - No OCR: scanned PDFs without a text layer return ErrNoText.
//   - Paragraphs: pdfium reports lines, not paragraphs. A blank line is
//     inserted where the gap between two baselines exceeds 1.4 times the
//     page's usual line spacing, or the text jumps upwards (a new column).
//     This is a heuristic: headings, captions and footnotes also get blank
//     lines around them, and pages with no regular spacing get none.
//   - Titles: placeholder metadata titles ("Untitled", a bare file name such
//     as "report.docx") are dropped; PDFs have no heading fallback, so the
//     title is then "" and the caller uses the file name.
package extract
