package extract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/extract/extracttest"
)

// TestExtractOLEOffice: a password-protected Office file and binary Office
// 97–2003 files under an OOXML name say what they are, with sentinels,
// instead of "zip: not a valid zip file".
func TestExtractOLEOffice(t *testing.T) {
	ext := mustExtractor(t)
	cases := []struct {
		name    string
		data    []byte
		want    error
		message string
	}{
		{"secret.docx", extracttest.OLE("EncryptedInfo", "EncryptedPackage"), ErrOfficeEncrypted, "password-protected Office document: not supported"},
		{"secret.xlsx", extracttest.OLE("\x06DataSpaces", "EncryptionInfo", "EncryptedPackage"), ErrOfficeEncrypted, "password-protected Office document: not supported"},
		{"old.docx", extracttest.OLE("WordDocument", "1Table", "\x05SummaryInformation"), ErrLegacyOffice, "legacy binary Word .doc (Word 97–2003): save as .docx"},
		{"old.docm", extracttest.OLE("1Table", "WordDocument"), ErrLegacyOffice, "legacy binary Word .doc (Word 97–2003): save as .docx"},
		{"old.xlsx", extracttest.OLE("Workbook"), ErrLegacyOffice, "legacy binary Excel .xls (Excel 97–2003): save as .xlsx"},
		{"old.pptx", extracttest.OLE("PowerPoint Document", "Current User"), ErrLegacyOffice, "legacy binary PowerPoint .ppt (PowerPoint 97–2003): save as .pptx"},
		{"other.odt", extracttest.OLE("Contents"), ErrMalformed, "OLE2 compound file"},
	}
	for _, c := range cases {
		_, err := ext.Extract(context.Background(), c.name, c.data)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.message) || strings.Contains(err.Error(), "zip") {
			t.Errorf("%s: message %q, want %q", c.name, err, c.message)
		}
	}
	if _, err := ext.Extract(context.Background(), "old.docx", extracttest.OLE("WordDocument")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("legacy .doc: err = %v, want it to match ErrUnsupported too", err)
	}
}
