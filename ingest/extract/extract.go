package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/ingest/extract/markup"
	"github.com/mcpvec/mcpvec/ingest/extract/office"
	"github.com/mcpvec/mcpvec/ingest/extract/pdf"
)

// Default limits used when the corresponding Options field is zero.
const (
	DefaultMaxBytes     = 256 << 20
	DefaultPageTimeout  = 30 * time.Second
	DefaultDocTimeout   = 120 * time.Second
	DefaultMemoryLimit  = 1 << 30
	defaultMaxInstances = 4
)

// Options configures an Extractor. The zero value is usable.
type Options struct {
	// MaxBytes rejects larger inputs with ErrTooLarge (0 = DefaultMaxBytes).
	MaxBytes int64
	// PageTimeout bounds the time spent on one PDF page (0 =
	// DefaultPageTimeout); DocTimeout bounds a whole document (0 =
	// DefaultDocTimeout). pdfium and, when it cannot open the file, the
	// fallback worker each get at most DocTimeout.
	PageTimeout, DocTimeout time.Duration
	// CacheDir holds wazero's compiled pdfium so only the first run pays the
	// compile ("" = os.UserCacheDir()/mcpvec/wasm; if that cannot be created
	// the compilation is kept in memory only).
	CacheDir string
	// WorkerCommand is the argv that starts the fallback worker process,
	// which must call RunWorker with its stdin and stdout, e.g.
	// {os.Executable(), "__extract-worker"}. nil disables the fallback.
	WorkerCommand []string
	// Password is the user password tried on encrypted PDFs (for AES-256
	// files also after SASLprep), then the empty one, so files that need
	// no password still open. Owner passwords are not needed: a file with
	// only an owner password opens without one.
	Password string
	// MemoryLimit bounds the memory of one pdfium instance and of the
	// fallback worker's resident set, in bytes (0 = DefaultMemoryLimit).
	MemoryLimit int64
	// MaxInstances bounds how many PDFs are extracted at once, each in its
	// own pdfium instance of about 55 MiB (0 = min(GOMAXPROCS, 4)).
	MaxInstances int
	// OCR says when scanned pages and images are read by tesseract ("" =
	// OCRAuto). OCRLang is tesseract's -l ("" = "eng"; e.g. "eng+deu"),
	// OCRDPI the render resolution (0 = DefaultOCRDPI), OCRCommand the
	// program ("" = "tesseract", looked up on PATH) and OCRWorkers how many
	// pages are read at once across all documents (0 = GOMAXPROCS). Each
	// page gets PageTimeout.
	OCR        OCRMode
	OCRLang    string
	OCRDPI     int
	OCRCommand string
	OCRWorkers int
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = DefaultPageTimeout
	}
	if o.DocTimeout <= 0 {
		o.DocTimeout = DefaultDocTimeout
	}
	if o.MemoryLimit <= 0 {
		o.MemoryLimit = DefaultMemoryLimit
	}
	if o.MaxInstances <= 0 {
		o.MaxInstances = min(runtime.GOMAXPROCS(0), defaultMaxInstances)
	}
	o.OCR = cmp.Or(o.OCR, OCRAuto)
	o.OCRLang = cmp.Or(o.OCRLang, "eng")
	o.OCRCommand = cmp.Or(o.OCRCommand, "tesseract")
	o.OCRDPI = cmp.Or(o.OCRDPI, DefaultOCRDPI)
	o.OCRWorkers = cmp.Or(o.OCRWorkers, runtime.GOMAXPROCS(0))
	if o.CacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			o.CacheDir = filepath.Join(dir, "mcpvec", "wasm")
		}
	}
	return o
}

// pdfConfig is what the PDF and OCR readers need of o (defaults filled in).
func (o Options) pdfConfig() pdf.Config {
	return pdf.Config{
		PageTimeout: o.PageTimeout, DocTimeout: o.DocTimeout, CacheDir: o.CacheDir,
		WorkerCommand: o.WorkerCommand, Password: o.Password, MemoryLimit: o.MemoryLimit,
		MaxInstances: o.MaxInstances, OCR: o.OCR, OCRLang: o.OCRLang, OCRDPI: o.OCRDPI,
		OCRCommand: o.OCRCommand, OCRWorkers: o.OCRWorkers,
	}
}

// Extractor turns file bytes into a Document. It is safe for concurrent
// use: PDFs are extracted in a pool of at most Options.MaxInstances pdfium
// WebAssembly instances (callers beyond that wait for a free one, or for
// their context); an instance that saw an error is destroyed rather than
// reused. Other formats need no shared state.
type Extractor struct {
	opts Options
	ocr  *pdf.OCR // nil when OCR is off or tesseract is missing

	mu     sync.Mutex // guards eng and closed
	eng    *pdf.Engine
	closed bool
}

// New returns an Extractor. It does not start pdfium: the WebAssembly
// module is compiled (or loaded from Options.CacheDir) on the first PDF, so
// New is cheap and only fails on invalid options, or with ErrNoOCR when
// Options.OCR is OCRAlways and tesseract is not found.
func New(ctx context.Context, opts Options) (*Extractor, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("new extractor: %w", err)
	}
	if opts.MaxBytes < 0 || opts.PageTimeout < 0 || opts.DocTimeout < 0 {
		return nil, errors.New("new extractor: negative limit")
	}
	switch opts.OCR {
	case "", OCRAuto, OCRAlways, OCRNever:
	default:
		return nil, fmt.Errorf("new extractor: ocr mode %q is not auto, always or never", opts.OCR)
	}
	opts = opts.withDefaults()
	ocr, err := pdf.NewOCR(opts.pdfConfig())
	if err != nil {
		return nil, fmt.Errorf("new extractor: %w", err)
	}
	return &Extractor{opts: opts, ocr: ocr}, nil
}

// Extract returns the text of the file called name (used only for its
// extension) with contents data. Errors wrap one of the package's sentinel
// errors: ErrUnsupported, ErrTooLarge, ErrEncrypted, ErrMalformed,
// ErrTimeout, ErrNoText, ErrGarbage, ErrOfficeEncrypted, ErrLegacyOffice
// (an OLE2 file under a .docx, .xlsx, ... name), ErrExpansion (the text
// grew past the file's expansion budget, see ExpansionFactor), or
// ErrClosed; a cancelled ctx returns an error wrapping ctx.Err(). The
// message does not repeat name, so callers
// prefix it. Extract recovers panics from the PDF libraries.
func (e *Extractor) Extract(ctx context.Context, name string, data []byte) (doc *Document, err error) {
	if int64(len(data)) > e.opts.MaxBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), e.opts.MaxBytes)
	}
	mt, ok := MediaType(name, data)
	if !ok {
		return nil, ErrUnsupported
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: internal error: %v", ErrMalformed, r)
		}
	}()
	doc, err = e.extract(ctx, mt, data, core.NewBudget(len(data)))
	if err != nil {
		return nil, err
	}
	doc.MediaType = mt
	if mt == TypeHTML || mt == TypeText || mt == TypeMarkdown { // the others clean their pages
		doc.Pages[0] = CleanText(doc.Pages[0])
	}
	if err := core.TextQuality(doc.Pages...); err != nil {
		return nil, pdf.ExplainNoText(e.ocr, e.opts.pdfConfig(), mt, err)
	}
	doc.Headings = core.PlaceHeadings(doc.Pages, doc.Headings)
	if doc.Title == "" && headingTitled[mt] && len(doc.Headings) > 0 {
		doc.Title = doc.Headings[0].Title
	}
	return doc, nil
}

// headingTitled are the formats whose first heading (Word, ODT) or first
// slide title stands for a missing metadata title; a spreadsheet's first
// heading is a sheet name, no title.
var headingTitled = map[string]bool{TypeDOCX: true, TypeODT: true, TypePPTX: true, TypeODP: true}

// extract reads data of media type mt, charging its text to b.
func (e *Extractor) extract(ctx context.Context, mt string, data []byte, b *core.Budget) (*Document, error) {
	switch mt {
	case TypePDF:
		return e.extractPDF(ctx, data, b)
	case TypeDOCX, TypePPTX, TypeXLSX, TypeODT, TypeODP, TypeODS, TypeEPUB:
		return office.Extract(mt, data, b)
	case TypeRTF:
		return markup.RTF(data, b)
	case TypePNG, TypeJPEG, TypeTIFF:
		return pdf.Image(ctx, e.ocr, mt, data)
	case TypeHTML:
		h, err := markup.HTML(data, b)
		return &Document{Title: h.Title, Pages: []string{h.Text}, Headings: h.Headings}, err
	}
	text, ok := markup.DecodeText(data)
	if !ok {
		return nil, fmt.Errorf("%w: binary data in text file", ErrUnsupported)
	}
	if !b.Take(len(text)) {
		return nil, b.Err()
	}
	doc := &Document{Pages: []string{text}}
	if mt == TypeMarkdown {
		doc.Title, doc.Pages[0], doc.Headings = markup.Markdown(text)
	}
	return doc, nil
}

// Close releases the pdfium instances. Extract calls that are running
// finish or fail; later calls return ErrClosed. Close is idempotent.
func (e *Extractor) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.eng == nil {
		return nil
	}
	err := e.eng.Close()
	e.eng = nil
	return err
}

// engine returns the pdfium engine, starting it on first use.
func (e *Extractor) engine() (*pdf.Engine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, ErrClosed
	}
	if e.eng == nil {
		eng, err := pdf.NewEngine(e.opts.pdfConfig())
		if err != nil {
			return nil, err
		}
		e.eng = eng
	}
	return e.eng, nil
}

// extractPDF reads a PDF with pdfium, the fallback worker and OCR.
func (e *Extractor) extractPDF(ctx context.Context, data []byte, b *core.Budget) (*Document, error) {
	eng, err := e.engine()
	if err != nil {
		return nil, err
	}
	return pdf.Extract(ctx, eng, e.ocr, e.opts.pdfConfig(), data, b)
}

// OCRAvailable reports whether this Extractor reads scanned pages and
// images (OCR is not off and tesseract was found).
func (e *Extractor) OCRAvailable() bool { return e.ocr != nil }
