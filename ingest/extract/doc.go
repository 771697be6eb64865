// Package extract turns the bytes of a PDF, plain-text, Markdown, HTML,
// Office (DOCX, PPTX, XLSX), OpenDocument (ODT, ODP, ODS), EPUB or RTF file
// into cleaned text, one string per page.
//
// The "page" is each format's natural unit, the one a citation points to: a
// PDF page; a DOCX page as Word last recorded it (explicit page breaks,
// page-break-before and lastRenderedPageBreak; a document never laid out by
// Word is one page); an ODT page at LibreOffice's soft page breaks; a slide
// with its speaker notes after "Notes:" (PPTX, ODP); a worksheet starting
// with its name (XLSX, ODS); a spine document with text (EPUB: the cover
// and other empty ones are not counted); an RTF \page break. Tables come
// out one row per line, cells separated by " | ". Titles come from
// docProps/core.xml, meta.xml, the EPUB package's dc:title or RTF \info;
// a Word, ODT or slide file without one takes its first heading. DOCX
// footnotes, endnotes and comments follow the paragraph citing them
// ("Footnote: ..."), its headers and footers come once after the body.
// Spreadsheet numbers in a date format are written as dates (1952-10-11,
// 1952-10-11 14:24), in the workbook's date system. An OLE2 compound file
// under an Office name fails with ErrOfficeEncrypted (a password-protected
// document) or ErrLegacyOffice (a .doc, .xls or .ppt).
//
// The ZIP and XML formats are read with archive/zip and encoding/xml: the
// standard library covers what is needed (text, tables, notes, order), is
// maintained with Go's security fixes, and its limits are easy to state;
// the Go Office libraries add write support and large APIs we would not
// use, and none handles all eight formats.
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
//   - OCR: with Options.OCR auto (and tesseract on PATH) or always, a PDF
//     page with under 50 visible characters whose content includes an
//     image or form covering a quarter of the page is rendered grey by
//     pdfium (at Options.OCRDPI, lower for huge pages, not at all below 50
//     DPI) and read by a tesseract process per page: PNG on stdin, text on
//     stdout, OMP_THREAD_LIMIT=1, killed after PageTimeout or when ctx
//     ends. The OCR text replaces the page's text layer only when it has
//     more words. Rendered pages are held in memory (about 100-300 KB each)
//     until pdfium is released, then read in parallel, at most
//     Options.OCRWorkers processes per Extractor; the OCR of a document has
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
//   - Archives: parts are read by exact name from an in-memory ZIP; no
//     entry name ever becomes a file path, and non-local names ("../x",
//     "/x", backslashes) are dropped. A part may inflate to 64 MiB and a
//     file to 256 MiB in all, at most 20000 entries, and an entry over
//     1 MiB may compress at most 200:1; beyond that Extract returns
//     ErrTooLarge. The bytes actually inflated are counted, not the sizes
//     the header claims.
//   - XML: encoding/xml in strict mode expands only the predefined
//     entities, so entity bombs fail as ErrMalformed; a DOCTYPE declaring
//     entities and nesting deeper than 512 are refused too. Elements are
//     matched by local name (w:t, a:p, text:p) whatever their prefix.
//   - Office content not read: charts, SmartArt, embedded objects, and
//     the text of password-protected or binary 97–2003 files. Spreadsheet
//     cells show their cached values, not the number format's rounding,
//     currency or thousands separators; only dates and times are
//     formatted.
//   - Headings: Document.Headings come from PDF bookmarks (not from tagged
//     structure or font sizes; a PDF without an outline has none), Markdown
//     ATX and setext headings, HTML and EPUB h1-h6 (EPUB's nav document is
//     not read), DOCX paragraphs whose style or direct formatting has an
//     outline level (styles.xml, following basedOn; "heading N" and "Title"
//     names otherwise), ODT text:h, PPTX/ODP title placeholders, and the
//     sheet names of XLSX/ODS. RTF gives none. A heading is placed where its title occurs in
//     the cleaned page text (a line of its own preferred, case and spacing
//     ignored); a PDF bookmark whose title is not printed on its page is
//     placed at the start of the page (its y position is not used).
//     Titles are cut to 200 characters, levels deeper than 9 are dropped,
//     and a document keeps at most 20000 headings.
//   - Titles: placeholder metadata titles ("Untitled", a bare file name such
//     as "report.docx") are dropped; PDFs, spreadsheets, EPUB and RTF have
//     no heading fallback, so the title is then "" and the caller uses the
//     file name.
package extract
