package office

import (
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// Extract reads a file of one of the ZIP-based media types (DOCX, PPTX,
// XLSX, ODT, ODP, ODS, EPUB), charging its text to b. It recovers a panic
// in a parser as ErrMalformed, so a bug triggered by a hostile file fails
// that file only. Errors wrap the core sentinels, ErrEncrypted or
// ErrLegacy. Extract is safe for concurrent use (each call owns its state).
func Extract(mt string, data []byte, b *core.Budget) (doc *core.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: internal error: %v", core.ErrMalformed, r)
		}
	}()
	return Parse(mt, data, b)
}

// Parse is Extract without the recover, so that a fuzz test sees panics.
func Parse(mt string, data []byte, b *core.Budget) (doc *core.Document, err error) {
	if err := sniffOLE(data); err != nil {
		return nil, err
	}
	a, err := openArchive(data, b)
	if err != nil {
		return nil, err
	}
	switch mt {
	case core.TypeDOCX:
		doc, err = extractDOCX(a)
	case core.TypePPTX:
		doc, err = extractPPTX(a)
	case core.TypeXLSX:
		doc, err = extractXLSX(a)
	case core.TypeEPUB:
		doc, err = extractEPUB(a)
	default:
		doc, err = extractODF(a, mt)
	}
	if err != nil {
		return nil, wrapPartError(err)
	}
	return doc, nil
}

// wrapPartError makes a missing part core.ErrMalformed (the archive is not the
// format its name says) and leaves the package's sentinels as they are.
func wrapPartError(err error) error {
	if errors.Is(err, errMissingPart) {
		return fmt.Errorf("%w: %w", core.ErrMalformed, err)
	}
	return err
}
