// Package markup reads the text formats for package extract: HTML (with
// golang.org/x/net/html, charset sniffed), Markdown, RTF (a small tokenizer of its
// own) and the decoding of plain text (UTF-8, UTF-16/32 with a byte order
// mark, else Windows-1252).
//
// # Caveats
//
//   - Concurrency: every function is safe for concurrent use.
//   - Panics: nothing here recovers; extract.Extract does, for every reader.
//   - Text is returned as read, not cleaned: extract runs CleanText on it.
//   - HTML: scripts, styles, navigation, forms and other non-text elements
//     are dropped; h1-h6 become headings; the title is <title>, else the
//     first <h1>.
//   - Markdown: markup is stripped line by line with regular expressions;
//     code blocks keep their content, front matter, link targets, rules,
//     HTML tags and emphasis markers are dropped.
//   - RTF: text, \page breaks, table rows and the \info title; destinations
//     that are not shown (fonts, pictures, fields' instructions) are
//     skipped, and groups nested deeper than 1024 are ErrMalformed.
package markup
