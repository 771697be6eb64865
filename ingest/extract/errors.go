package extract

import (
	"errors"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/ingest/extract/office"
	"github.com/mcpvec/mcpvec/ingest/extract/pdf"
)

// Sentinel errors returned (wrapped) by Extract and MediaType users. Callers
// branch on them with errors.Is; the messages are short and meant to be shown
// to a user after the file name, e.g. "cats.pdf: password required".
var (
	// ErrEncrypted means the PDF needs a user password and none, or a wrong
	// one, was given.
	ErrEncrypted = core.ErrEncrypted
	// ErrNoText means the document opened but holds no extractable text,
	// typically a scanned PDF without a text layer when OCR is off or
	// tesseract is missing (the message then says how to install it).
	ErrNoText = core.ErrNoText
	// ErrMalformed means neither pdfium nor the fallback reader could parse
	// the file.
	ErrMalformed = core.ErrMalformed
	// ErrTooLarge means the input exceeds Options.MaxBytes.
	ErrTooLarge = core.ErrTooLarge
	// ErrUnsupported means the file type is not one Extract handles.
	ErrUnsupported = core.ErrUnsupported
	// ErrTimeout means extraction exceeded Options.PageTimeout or
	// Options.DocTimeout and was stopped.
	ErrTimeout = core.ErrTimeout
	// ErrGarbage means the extracted text is mostly replacement or garbage
	// characters (broken font encodings), so it is not worth indexing.
	ErrGarbage = core.ErrGarbage
	// ErrExpansion means the document's text grew past its expansion
	// budget (ExpansionFactor times the file's size, at most MaxExpansion
	// bytes): a small file whose references expand to far more text, such
	// as a spreadsheet with one huge shared string in every cell. The
	// message says "expands past N MB".
	ErrExpansion = core.ErrExpansion

	// ErrOfficeEncrypted means the file is a password-protected Office
	// document: Office encrypts a .docx, .xlsx or .pptx into an
	// EncryptedPackage stream of an OLE2 compound file, which is not read.
	ErrOfficeEncrypted = office.ErrEncrypted
	// ErrLegacyOffice means the file is a binary Office 97–2003 document
	// (.doc, .xls, .ppt) under a newer format's name; the message says
	// which and what to save it as. It also matches ErrUnsupported.
	ErrLegacyOffice = office.ErrLegacy
	// ErrNoOCR means OCR was asked for (--ocr always) but tesseract is not
	// installed.
	ErrNoOCR = pdf.ErrNoOCR
	// ErrClosed is returned by Extract after Close.
	ErrClosed = errors.New("extractor closed")
)

// Lasting reports whether err says something about the file's content that
// only a change to the file can change: encrypted, malformed, too large, no
// text, garbage, an unsupported type. A timeout, a permission problem, a
// cancelled context or an embedding failure are not lasting. Sync remembers
// lasting failures so that a file it can never read is reported once, not
// on every run.
func Lasting(err error) bool {
	for _, e := range []error{ErrEncrypted, ErrNoText, ErrMalformed, ErrTooLarge, ErrUnsupported, ErrGarbage} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
