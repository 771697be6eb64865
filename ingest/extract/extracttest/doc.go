// Package extracttest writes small documents in every ZIP/XML and RTF
// format package extract reads, for tests in extract and beyond it (the
// end-to-end tests of cmd/mcpvec). It imports no mcpvec package.
//
// Two kinds of fixture: the Cats* functions write one fixed document per
// format with the structure extract must handle (tables, notes, deleted
// text, slides stored out of order, page breaks Word recorded), pinned by
// golden files under ingest/extract/testdata/formats; DOCX, PPTX, XLSX,
// ODT, ODP, ODS, EPUB and RTF write a document of given units (pages,
// slides, sheets, chapters) of plain text, so a test can put a phrase in
// exactly one unit. CaptureStdout checks that a reader prints nothing.
//
// # Caveats
//
//   - Output is deterministic: ZIP entries carry a fixed time, so the
//     same call gives the same bytes.
//   - Unit text is escaped for XML or RTF; each line becomes a paragraph
//     (a row of cells split at " | " in a sheet, whose first line is the
//     sheet's name). RTF text is written as \uN escapes beyond ASCII.
//   - The functions call tb.Fatal on a ZIP write error and are safe for
//     concurrent use.
package extracttest
