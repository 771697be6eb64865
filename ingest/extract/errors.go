package extract

import "errors"

// Sentinel errors returned (wrapped) by Extract and MediaType users. Callers
// branch on them with errors.Is; the messages are short and meant to be shown
// to a user after the file name, e.g. "cats.pdf: password required".
var (
	// ErrEncrypted means the PDF needs a user password and none, or a wrong
	// one, was given.
	ErrEncrypted = errors.New("password required")
	// ErrNoText means the document opened but holds no extractable text,
	// typically a scanned PDF without a text layer when OCR is off or
	// tesseract is missing (the message then says how to install it).
	ErrNoText = errors.New("no extractable text")
	// ErrMalformed means neither pdfium nor the fallback reader could parse
	// the file.
	ErrMalformed = errors.New("malformed document")
	// ErrTooLarge means the input exceeds Options.MaxBytes.
	ErrTooLarge = errors.New("file too large")
	// ErrUnsupported means the file type is not one Extract handles.
	ErrUnsupported = errors.New("unsupported file type")
	// ErrTimeout means extraction exceeded Options.PageTimeout or
	// Options.DocTimeout and was stopped.
	ErrTimeout = errors.New("extraction timed out")
	// ErrGarbage means the extracted text is mostly replacement or garbage
	// characters (broken font encodings), so it is not worth indexing.
	ErrGarbage = errors.New("extracted text is mostly garbage characters")
	// ErrExpansion means the document's text grew past its expansion
	// budget (ExpansionFactor times the file's size, at most MaxExpansion
	// bytes): a small file whose references expand to far more text, such
	// as a spreadsheet with one huge shared string in every cell. The
	// message says "expands past N MB".
	ErrExpansion = errors.New("expansion bomb")
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
