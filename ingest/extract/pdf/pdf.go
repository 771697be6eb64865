package pdf

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// Config is what the PDF and OCR readers need of extract.Options, with
// every default already filled in (extract does that): see extract.Options for
// the meaning of each field.
type Config struct {
	PageTimeout, DocTimeout time.Duration
	CacheDir                string
	WorkerCommand           []string
	Password                string
	MemoryLimit             int64
	MaxInstances            int
	OCR                     OCRMode
	OCRLang                 string
	OCRDPI                  int
	OCRCommand              string
	OCRWorkers              int
}

// Extract reads a PDF with a pdfium instance of eng, charging its text to
// b. When pdfium cannot open the file (not for encrypted files) and
// cfg.WorkerCommand is set, it retries with the fallback reader in a worker
// process; with ocr (nil: no OCR), pages whose text layer is thin are read
// by tesseract. cfg must be filled in (see Config). Errors wrap the core
// sentinels (ErrEncrypted, ErrMalformed, ErrTimeout, ErrExpansion) or
// ctx.Err(); panics in pdfium are recovered as ErrMalformed. Extract is
// safe for concurrent use.
func Extract(ctx context.Context, eng *Engine, ocr *OCR, cfg Config, data []byte, b *core.Budget) (*core.Document, error) {
	var mode OCRMode
	if ocr != nil {
		mode = cfg.OCR
	}
	doc, scans, err := eng.extract(ctx, data, cfg, mode, b)
	var oerr *openError
	if !errors.As(err, &oerr) {
		if err == nil && len(scans) > 0 {
			err = ocr.scans(ctx, doc, scans, cfg.DocTimeout)
		}
		return doc, err
	}
	if len(cfg.WorkerCommand) == 0 {
		return nil, fmt.Errorf("%w: %v", core.ErrMalformed, oerr)
	}
	slog.Debug("pdfium cannot open file; trying fallback worker", "err", err)
	doc, werr := Fallback(ctx, cfg, data)
	switch {
	case werr == nil:
		return doc, core.ChargePages(b, doc.Pages)
	case errors.Is(werr, core.ErrTimeout) || ctx.Err() != nil:
		return nil, fmt.Errorf("fallback reader: %w", werr)
	}
	return nil, fmt.Errorf("%w: %v; fallback reader: %s", core.ErrMalformed, oerr,
		strings.TrimPrefix(werr.Error(), core.ErrMalformed.Error()+": "))
}
