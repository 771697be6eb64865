package office

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// Errors for Office files that are OLE2 compound files rather than the ZIP
// packages their names promise.
var (
	// ErrEncrypted means the file is a password-protected Office
	// document: Office encrypts a .docx, .xlsx or .pptx into an
	// EncryptedPackage stream of an OLE2 compound file, which is not read.
	ErrEncrypted = errors.New("password-protected Office document: not supported")
	// ErrLegacy means the file is a binary Office 97–2003 document
	// (.doc, .xls, .ppt) under a newer format's name; the message says
	// which and what to save it as. It also matches core.ErrUnsupported.
	ErrLegacy = errors.New("legacy binary Office document (Office 97–2003)")
)

// oleSignature starts every OLE2 compound file (CFB).
var oleSignature = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// legacyError is ErrLegacy for one application.
type legacyError struct{ what, saveAs string }

func (e *legacyError) Error() string {
	return "legacy binary " + e.what + ": save as " + e.saveAs
}

func (e *legacyError) Is(target error) bool {
	return target == ErrLegacy || target == core.ErrUnsupported
}

// legacyStreams maps the stream that identifies an Office 97–2003 file to
// what it is and the format to save it as.
var legacyStreams = []struct{ stream, what, saveAs string }{
	{"WordDocument", "Word .doc (Word 97–2003)", ".docx"},
	{"Workbook", "Excel .xls (Excel 97–2003)", ".xlsx"},
	{"Book", "Excel .xls (Excel 5.0/95)", ".xlsx"},
	{"PowerPoint Document", "PowerPoint .ppt (PowerPoint 97–2003)", ".pptx"},
}

// sniffOLE returns nil when data is not an OLE2 compound file, else why it
// cannot be read as the ZIP-based format its name says: ErrEncrypted,
// a legacyError, or core.ErrMalformed for another compound file.
func sniffOLE(data []byte) error {
	if !bytes.HasPrefix(data, oleSignature) {
		return nil
	}
	names := oleStreamNames(data)
	if names["EncryptedPackage"] {
		return ErrEncrypted
	}
	for _, l := range legacyStreams {
		if names[l.stream] {
			return &legacyError{what: l.what, saveAs: l.saveAs}
		}
	}
	return fmt.Errorf("%w: an OLE2 compound file, not a ZIP-based document", core.ErrMalformed)
}

// oleStreamNames returns the names of the directory entries of a compound
// file. Directory sectors are 512 or 4096 bytes after a 512-byte header,
// so every entry sits at a multiple of 128 bytes; rather than follow the
// FAT chain, each such slot is read as an entry and kept when its name
// length field fits its name (a sniff: stream data rarely matches).
func oleStreamNames(data []byte) map[string]bool {
	names := map[string]bool{}
	for off := 512; off+128 <= len(data) && len(names) < 1024; off += 128 {
		e := data[off : off+128]
		n := int(binary.LittleEndian.Uint16(e[64:]))
		if n < 4 || n > 64 || n%2 != 0 || e[66] < 1 || e[66] > 5 || e[n-2] != 0 || e[n-1] != 0 {
			continue
		}
		u := make([]uint16, n/2-1)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(e[2*i:])
		}
		names[string(utf16.Decode(u))] = true
	}
	return names
}
