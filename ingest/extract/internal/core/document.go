package core

import "time"

// Document is the text of one file.
type Document struct {
	// Title is the document's metadata title (PDF Info, docProps/core.xml,
	// meta.xml, EPUB dc:title, RTF \info), else the first heading (Markdown
	// #, HTML <title> or <h1>, the first Word or ODT heading, the first
	// slide title), else "" and the caller uses the file name.
	Title string
	// MediaType is one of the Type constants (TypePDF, TypeDOCX, ...).
	MediaType string
	// Pages holds the cleaned text of each page, the unit a citation
	// points to (a slide, a sheet, an EPUB chapter; see the package doc);
	// formats without pages have exactly one. A page without text is "".
	Pages []string
	// Headings are the document's headings in order (PDF bookmarks,
	// Markdown and HTML headings, Office heading styles, slide titles),
	// each placed in Pages; nil when the format or file has none.
	Headings []Heading
	// Created is the document's own creation date as its format records
	// it (PDF Info CreationDate, dcterms:created in docProps/core.xml,
	// meta:creation-date in ODF meta.xml, EPUB dc:date), in UTC; zero when
	// the format or file records none or it does not parse.
	Created time.Time
}

// AddUnit appends the text of a unit (a slide, sheet or chapter) as the next
// page and places heads, the unit's headings, on it.
func AddUnit(d *Document, text string, heads ...Heading) {
	for _, h := range heads {
		h.Page = len(d.Pages)
		d.Headings = append(d.Headings, h)
	}
	d.Pages = append(d.Pages, text)
}

// Paged returns d, given its one empty page if no unit was added: a
// document always has a page.
func Paged(d *Document) *Document {
	if len(d.Pages) == 0 {
		d.Pages = []string{""}
	}
	return d
}

// Heading is one heading of a document, in document order.
type Heading struct {
	// Level is the outline level: 1 for a chapter, 2 for a section, and so
	// on; 0 is a document title inside the text (a DOCX Title paragraph).
	Level int
	// Title is the heading's text on one line.
	Title string
	// Page is the 0-based index into Document.Pages of the page holding it.
	Page int
	// Offset is the byte offset in Pages[Page] where the heading's text
	// starts, or where its page starts when the text was not found there
	// (a PDF bookmark whose title is not printed on its page).
	Offset int
}

// Media types reported in Document.MediaType and by MediaType.
const (
	TypePDF      = "application/pdf"
	TypeText     = "text/plain"
	TypeMarkdown = "text/markdown"
	TypeHTML     = "text/html"
	TypeDOCX     = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	TypePPTX     = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	TypeXLSX     = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	TypeODT      = "application/vnd.oasis.opendocument.text"
	TypeODP      = "application/vnd.oasis.opendocument.presentation"
	TypeODS      = "application/vnd.oasis.opendocument.spreadsheet"
	TypeEPUB     = "application/epub+zip"
	TypeRTF      = "application/rtf"
	TypePNG      = "image/png"
	TypeJPEG     = "image/jpeg"
	TypeTIFF     = "image/tiff"
)
