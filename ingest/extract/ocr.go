package extract

import (
	"io"

	"github.com/mcpvec/mcpvec/ingest/extract/pdf"
)

// OCRMode says when PDF pages and images are read by Tesseract.
type OCRMode = pdf.OCRMode

// OCR modes for Options.OCR.
const (
	// OCRAuto reads pages without a text layer when tesseract is on PATH,
	// and otherwise reports them as ErrNoText with how to install it.
	OCRAuto = pdf.OCRAuto
	// OCRAlways reads every PDF page by OCR and keeps whichever of the
	// text layer and the OCR text has more words; New fails without
	// tesseract.
	OCRAlways = pdf.OCRAlways
	// OCRNever never runs tesseract.
	OCRNever = pdf.OCRNever
)

// DefaultOCRDPI is the resolution pages are rendered at for OCR (see
// pdf.DefaultOCRDPI for how it was chosen).
const DefaultOCRDPI = pdf.DefaultOCRDPI

// WorkerEnv is set to "1" in the environment of every fallback worker the
// Extractor starts, so a test binary can recognise that it was re-run as
// the worker.
const WorkerEnv = pdf.WorkerEnv

// RunWorker is the fallback worker's main (see Options.WorkerCommand): a
// process started as the worker calls it with its stdin and stdout, then
// exits. It reads one request from r, writes one response to w and returns
// an error only for a broken request or an unwritable w; it is not safe
// for concurrent use. See [pdf.RunWorker] for the protocol.
func RunWorker(r io.Reader, w io.Writer) error { return pdf.RunWorker(r, w) }
