package extract

import "github.com/mcpvec/mcpvec/ingest/extract/internal/core"

// Document is the text of one file: its Title, MediaType (one of the Type
// constants), Pages (the cleaned text of each page, the unit a citation
// points to; formats without pages have exactly one) and Headings (each
// placed in Pages; nil when the format or file has none). See the field
// comments in the internal core package and the package doc for what a
// page and a heading are in each format.
type Document = core.Document

// Heading is one heading of a document, in document order: its outline
// Level (1 for a chapter; 0 a document title inside the text), its Title on
// one line, the 0-based Page holding it and the byte Offset in that page
// where its text starts (or the page start when the text was not found).
type Heading = core.Heading

// The expansion budget: the text one document may produce is at most
// ExpansionFactor times the file's size, never less than MinExpansion and
// never more than MaxExpansion bytes; past it Extract fails with
// ErrExpansion. Why these numbers is told where they are defined.
const (
	ExpansionFactor = core.ExpansionFactor
	MinExpansion    = core.MinExpansion
	MaxExpansion    = core.MaxExpansion
)

// CleanText normalises extracted text: Unicode NFKC (so ligatures such as
// "ﬁ" become "fi"), control and zero-width characters removed, words
// hyphenated across line ends joined ("exam-\nple" becomes "example"),
// runs of spaces and tabs collapsed, lines trimmed, and runs of blank lines
// reduced to one blank line, which marks a paragraph break. Single line
// breaks are kept. CleanText is a pure function, safe for concurrent use.
func CleanText(s string) string { return core.CleanText(s) }
