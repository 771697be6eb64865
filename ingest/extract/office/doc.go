// Package office reads the ZIP-based formats for package extract: Word
// (DOCX), PowerPoint (PPTX), Excel (XLSX), OpenDocument (ODT, ODP, ODS)
// and EPUB, whose chapters go through markup.HTML. An OLE2 compound file
// under one of these names fails with ErrEncrypted (a password-protected
// Office file) or ErrLegacy (a .doc, .xls or .ppt).
//
// The ZIP and XML formats are read with archive/zip and encoding/xml: the
// standard library covers what is needed (text, tables, notes, order), is
// maintained with Go's security fixes, and its limits are easy to state;
// the Go Office libraries add write support and large APIs we would not
// use, and none handles all of them.
//
// # Caveats
//
//   - Concurrency: Extract and Parse are safe for concurrent use; each
//     call owns its archive, handlers and flow.
//   - Panics: Extract recovers a panic in a parser as ErrMalformed; Parse
//     does not, so that fuzzing sees them.
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
package office
