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
// Text from every format goes through CleanText: NFKC, control characters
// removed, words hyphenated across line ends joined, whitespace collapsed,
// blank lines (paragraph breaks) kept. A result without visible characters
// is ErrNoText and one that is mostly replacement or unassigned characters
// is ErrGarbage.
//
// # Layout
//
// This package holds the API (Extractor, Options, the sentinel errors,
// MediaType and the dispatch on it); the readers live in one package per
// family, each with its own caveats:
//
//   - [github.com/mcpvec/mcpvec/ingest/extract/pdf]: PDFs (pdfium in
//     WebAssembly, the fallback worker process), OCR of scans and images
//     with tesseract.
//   - [github.com/mcpvec/mcpvec/ingest/extract/office]: the ZIP/XML formats
//     (DOCX, PPTX, XLSX, ODT, ODP, ODS, EPUB) and the OLE2 sniff.
//   - [github.com/mcpvec/mcpvec/ingest/extract/markup]: HTML, Markdown
//     (goldmark), RTF and plain text decoding.
//
// What they share (Document, Heading, the expansion budget, CleanText,
// heading placement, the page flow of structured formats, the sentinels)
// is in ingest/extract/internal/core.
//
// # Caveats
//
//   - Concurrency: an Extractor is safe for concurrent use. PDFs run in a
//     pool of at most Options.MaxInstances pdfium instances; a call waits
//     for a free instance or for its context. Other formats need no shared
//     state.
//   - Panics: Extract recovers a panic in any reader and returns
//     ErrMalformed, so a bug triggered by a hostile file fails that file
//     only.
//   - Limits: time (PageTimeout, DocTimeout), memory (MemoryLimit) and OCR
//     are PDF and image matters, told in package pdf; ZIP and XML limits
//     are told in package office. The expansion budget (ExpansionFactor)
//     bounds the text of every format.
//   - Hyphenation: "exam-\nple" becomes "example" whenever a line ends in a
//     letter and a hyphen and the next starts in lower case, so a compound
//     such as "well-\nknown" also loses its hyphen.
//   - Plain text that is not valid UTF-8 (and has no UTF-16/32 byte order
//     mark) is decoded as Windows-1252, a superset of Latin-1.
//   - Headings: Document.Headings come from PDF bookmarks (not from tagged
//     structure or font sizes; a PDF without an outline has none), Markdown
//     ATX and setext headings (also in lists and quotes), HTML and EPUB h1-h6 (EPUB's nav document is
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
