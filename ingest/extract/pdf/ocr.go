package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// OCRMode says when PDF pages and images are read by Tesseract.
type OCRMode string

// OCR modes for Options.OCR.
const (
	// OCRAuto reads pages without a text layer when tesseract is on PATH,
	// and otherwise reports them as core.ErrNoText with how to install it.
	OCRAuto OCRMode = "auto"
	// OCRAlways reads every PDF page by OCR and keeps whichever of the
	// text layer and the OCR text has more words; New fails without
	// tesseract.
	OCRAlways OCRMode = "always"
	// OCRNever never runs tesseract.
	OCRNever OCRMode = "never"
)

// DefaultOCRDPI is the resolution pages are rendered at for OCR, chosen
// with BenchmarkOCR on the scanned fixtures (300 DPI scans; word F1 /
// CPU seconds per page for pdfium render + tesseract):
//
//	           11 pt        11 pt, 2.5°   6 pt         6 pt, 2.5°
//	150 DPI    1.000 / 1.6  1.000 / 1.5   0.978 / 1.2  0.769 / 1.2
//	200 DPI    1.000 / 1.8  1.000 / 1.7   0.993 / 1.6  0.885 / 1.8
//	300 DPI    1.000 / 2.3  0.993 / 2.4   1.000 / 2.5  0.872 / 2.8
//
// 150 DPI loses small type; 300 costs about 40% more CPU for no gain
// beyond one word in small type.
const DefaultOCRDPI = 200

const (
	// ocrMinChars is the number of visible characters below which a PDF
	// page counts as scanned: a running header or page number on an image.
	ocrMinChars = 50
	// maxOCRPixels bounds one rendered page (a poster-sized page is
	// rendered at a lower DPI instead).
	maxOCRPixels = 40 << 20
	// minOCRDPI is the lowest resolution worth reading; a page too large
	// for maxOCRPixels even at this DPI is not OCRed.
	minOCRDPI = 50
	// maxScanObjects bounds how many page objects are inspected when
	// deciding whether a page is a scan.
	maxScanObjects = 1000
	maxOCROutput   = 4 << 20
)

// ErrNoOCR means OCR was asked for (--ocr always) but tesseract is not
// installed.
var ErrNoOCR = errors.New("tesseract not found: install it (apt install tesseract-ocr / brew install tesseract)")

// OCR runs tesseract, one process per page, at most cap(sem) at once
// (Config.OCRWorkers). It is safe for concurrent use.
type OCR struct {
	path    string
	lang    string
	dpi     int
	timeout time.Duration
	sem     chan struct{}
}

// NewOCR returns the engine for cfg, or nil when OCR is off or, in auto
// mode, tesseract is missing. It fails with ErrNoOCR in always mode
// without tesseract.
func NewOCR(cfg Config) (*OCR, error) {
	if cfg.OCR == OCRNever {
		return nil, nil
	}
	path, err := exec.LookPath(cfg.OCRCommand)
	if err != nil {
		if cfg.OCR == OCRAlways {
			return nil, fmt.Errorf("ocr always: %w", ErrNoOCR)
		}
		return nil, nil
	}
	if err := checkLangs(path, cfg.OCRLang); err != nil {
		return nil, err
	}
	return &OCR{path: path, lang: cfg.OCRLang, dpi: cfg.OCRDPI, timeout: cfg.PageTimeout,
		sem: make(chan struct{}, cfg.OCRWorkers)}, nil
}

// checkLangs fails when a language of lang ("eng+deu") is not installed,
// naming the Debian package that has it; if tesseract cannot list its
// languages the check is skipped and pages will report the problem.
func checkLangs(path, lang string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--list-langs").Output()
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		have[l] = true
	}
	for _, l := range strings.Split(lang, "+") {
		if !have[l] {
			return fmt.Errorf("ocr language %q is not installed (apt install tesseract-ocr-%s)", l, strings.ToLower(strings.ReplaceAll(l, "_", "-")))
		}
	}
	return nil
}

// image reads the text of one image (PNG, JPEG, TIFF, any that leptonica
// reads) given as bytes. dpi is passed to tesseract when > 0. The process
// is killed after the page timeout or when ctx ends.
func (o *OCR) image(ctx context.Context, img []byte, dpi int) (string, error) {
	select {
	case o.sem <- struct{}{}:
		defer func() { <-o.sem }()
	case <-ctx.Done():
		return "", fmt.Errorf("wait for ocr: %w", ctx.Err())
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	args := []string{"stdin", "stdout", "-l", o.lang}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(dpi))
	}
	cmd := exec.CommandContext(ctx, o.path, args...)
	// One thread per process: pages run in parallel instead, which scales
	// better than tesseract's OpenMP threads on small machines.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(img)
	out, stderr := &capBuffer{max: maxOCROutput}, &capBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, stderr
	cmd.WaitDelay = time.Second
	// A killed ingest must not leave tesseract running (it did, for ~7 s
	// in one of eight kills): the kernel ends it with its parent.
	release := tieToParent(cmd)
	err := cmd.Run()
	release()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return "", fmt.Errorf("%w: ocr of one page took over %s", core.ErrTimeout, o.timeout)
	case ctx.Err() != nil:
		return "", fmt.Errorf("ocr: %w", ctx.Err())
	case err != nil:
		return "", fmt.Errorf("%w: tesseract: %v: %s", core.ErrMalformed, err, lastLine(stderr.String()))
	}
	return out.String(), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// scans reads the rendered pages in parallel and puts the OCR text into
// doc where it has more words than the text layer. The OCR of a document
// gets its own budget of limit (like the fallback reader), after which,
// or when ctx ends, it fails with core.ErrTimeout or ctx's error; a page that
// fails or passes the page timeout keeps its text layer.
func (o *OCR) scans(ctx context.Context, doc *core.Document, scans map[int][]byte, limit time.Duration) error {
	docCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for i, img := range scans {
		wg.Go(func() {
			text, err := o.image(docCtx, img, o.dpi)
			if err != nil {
				slog.Debug("ocr page", "page", i+1, "err", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if text = core.CleanText(text); len(strings.Fields(text)) > len(strings.Fields(doc.Pages[i])) {
				doc.Pages[i] = text
			}
		})
	}
	wg.Wait()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("ocr: %w", ctx.Err())
	case docCtx.Err() != nil:
		return fmt.Errorf("%w: ocr of %d pages took over %s", core.ErrTimeout, len(scans), limit)
	}
	return nil
}

// needsOCR reports whether a PDF page's text layer is so thin that the
// page is probably an image of text.
func needsOCR(mode OCRMode, text string) bool {
	if mode == OCRAlways {
		return true
	}
	n := 0
	for _, r := range text {
		if r > ' ' {
			n++
		}
	}
	return n < ocrMinChars
}

// Image reads an image file (PNG, JPEG or TIFF, media type mt) by OCR:
// one page. Images whose header declares more than maxImagePixels are
// ErrTooLarge. Without ocr (nil) the page is empty, and ExplainNoText says
// why. Image is safe for concurrent use.
func Image(ctx context.Context, ocr *OCR, mt string, data []byte) (*core.Document, error) {
	if ocr == nil {
		return &core.Document{Pages: []string{""}}, nil // ExplainNoText says why
	}
	if err := checkImage(mt, data); err != nil {
		return nil, err
	}
	text, err := ocr.image(ctx, data, 0)
	if err != nil {
		return nil, err
	}
	return &core.Document{Pages: []string{core.CleanText(text)}}, nil
}

// ExplainNoText adds to an ErrNoText err, for PDFs and images, whether
// OCR ran (ocr non-nil) and, if tesseract is missing, how to install it;
// any other err is returned as it is.
func ExplainNoText(ocr *OCR, cfg Config, mt string, err error) error {
	if !errors.Is(err, core.ErrNoText) || (mt != core.TypePDF && !isImage(mt)) {
		return err
	}
	switch {
	case ocr != nil:
		return fmt.Errorf("%w, not even by OCR (language %s)", err, cfg.OCRLang)
	case cfg.OCR == OCRNever:
		return fmt.Errorf("%w — scanned? OCR is off (--ocr never)", err)
	}
	return fmt.Errorf("%w — scanned? OCR needs tesseract: apt install tesseract-ocr / brew install tesseract", err)
}

func isImage(mt string) bool { return mt == core.TypePNG || mt == core.TypeJPEG || mt == core.TypeTIFF }
