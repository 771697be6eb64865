package extract

import (
	"errors"
	"fmt"
)

// extractStructured reads the ZIP-based Office, OpenDocument and EPUB
// formats and RTF. It recovers a panic in a parser as ErrMalformed, so a
// bug triggered by a hostile file fails that file only.
func extractStructured(mt string, data []byte, b *budget) (doc *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: internal error: %v", ErrMalformed, r)
		}
	}()
	return parseStructured(mt, data, b)
}

// parseStructured is extractStructured without the recover, so that the
// fuzz test sees panics. The text is charged to b.
func parseStructured(mt string, data []byte, b *budget) (doc *Document, err error) {
	if mt == TypeRTF {
		return extractRTF(data, b)
	}
	if err := sniffOLE(data); err != nil {
		return nil, err
	}
	a, err := openArchive(data, b)
	if err != nil {
		return nil, err
	}
	switch mt {
	case TypeDOCX:
		doc, err = extractDOCX(a)
	case TypePPTX:
		doc, err = extractPPTX(a)
	case TypeXLSX:
		doc, err = extractXLSX(a)
	case TypeEPUB:
		doc, err = extractEPUB(a)
	default:
		doc, err = extractODF(a, mt)
	}
	if err != nil {
		return nil, wrapPartError(err)
	}
	return doc, nil
}

// wrapPartError makes a missing part ErrMalformed (the archive is not the
// format its name says) and leaves the package's sentinels as they are.
func wrapPartError(err error) error {
	if errors.Is(err, errMissingPart) {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return err
}
