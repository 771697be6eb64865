// Package markup reads the text formats for package extract: HTML (with
// golang.org/x/net/html, charset sniffed), Markdown (with
// github.com/yuin/goldmark's syntax tree), RTF (a small tokenizer of its
// own) and the decoding of plain text (UTF-8, UTF-16/32 with a byte order
// mark, else Windows-1252).
//
// # Caveats
//
//   - Concurrency: every function is safe for concurrent use; the goldmark
//     parser is built once and shared (its Parse keeps no state between
//     calls).
//   - Panics: nothing here recovers; extract.Extract does, for every reader.
//   - Text is returned as read, not cleaned: extract runs CleanText on it.
//   - HTML: scripts, styles, navigation, forms and other non-text elements
//     are dropped; h1-h6 become headings; the title is <title>, else the
//     first <h1>.
//   - Markdown: CommonMark plus GitHub tables, task lists and
//     strikethrough. Code (fenced, indented, spans) is kept verbatim;
//     outside code, backslash escapes are resolved, HTML entities are left
//     as written and raw HTML keeps only its text. Front matter (--- or +++, in
//     the first 200 lines) is dropped before parsing. goldmark's syntax
//     tree takes about 20 times the file's size in memory while it is
//     walked (the regular expressions it replaced took about 11 times).
//   - RTF: text, \page breaks, table rows and the \info title; destinations
//     that are not shown (fonts, pictures, fields' instructions) are
//     skipped, and groups nested deeper than 1024 are ErrMalformed.
package markup
