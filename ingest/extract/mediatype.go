package extract

import (
	"bytes"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/ingest/extract/markup"
)

// Media types reported in Document.MediaType and by MediaType.
const (
	TypePDF      = core.TypePDF
	TypeText     = core.TypeText
	TypeMarkdown = core.TypeMarkdown
	TypeHTML     = core.TypeHTML
	TypeDOCX     = core.TypeDOCX
	TypePPTX     = core.TypePPTX
	TypeXLSX     = core.TypeXLSX
	TypeODT      = core.TypeODT
	TypeODP      = core.TypeODP
	TypeODS      = core.TypeODS
	TypeEPUB     = core.TypeEPUB
	TypeRTF      = core.TypeRTF
	TypePNG      = core.TypePNG
	TypeJPEG     = core.TypeJPEG
	TypeTIFF     = core.TypeTIFF
)

// binaryTypes are the media types whose content is not sniffed as text.
var binaryTypes = map[string]bool{
	TypePDF: true, TypeDOCX: true, TypePPTX: true, TypeXLSX: true, TypeODT: true, TypeODP: true,
	TypeODS: true, TypeEPUB: true, TypeRTF: true, TypePNG: true, TypeJPEG: true, TypeTIFF: true,
}

var extTypes = map[string]string{
	".pdf":      TypePDF,
	".txt":      TypeText,
	".text":     TypeText,
	".md":       TypeMarkdown,
	".markdown": TypeMarkdown,
	".mdown":    TypeMarkdown,
	".mkd":      TypeMarkdown,
	".html":     TypeHTML,
	".htm":      TypeHTML,
	".xhtml":    TypeHTML,
	".docx":     TypeDOCX,
	".docm":     TypeDOCX,
	".pptx":     TypePPTX,
	".xlsx":     TypeXLSX,
	".xlsm":     TypeXLSX,
	".odt":      TypeODT,
	".odp":      TypeODP,
	".ods":      TypeODS,
	".epub":     TypeEPUB,
	".rtf":      TypeRTF,
	".png":      TypePNG,
	".jpg":      TypeJPEG,
	".jpeg":     TypeJPEG,
	".tif":      TypeTIFF,
	".tiff":     TypeTIFF,
}

// Extensions returns the file name extensions Extract handles, lower case
// with the leading dot, sorted: the table Supported (and so discover) reads.
func Extensions() []string {
	exts := make([]string, 0, len(extTypes))
	for e := range extTypes {
		exts = append(exts, e)
	}
	slices.Sort(exts)
	return exts
}

// Supported reports whether name has one of Extensions, in any letter
// case. Files without an extension may still be extracted when their content
// sniffs as text (see MediaType). Supported is safe for concurrent use.
func Supported(name string) bool {
	_, ok := extTypes[strings.ToLower(filepath.Ext(name))]
	return ok
}

// MediaType decides how a file is extracted, from its name's extension and
// a sniff of its first bytes. Content that starts with a PDF header is a PDF
// whatever its name, and a .pdf file is a PDF even without one (so a broken
// file is reported as malformed rather than skipped), and so is every other
// binary format by its extension (.docx, .epub, .png, ...); a known text extension (.txt, .md, .html, ...) must not
// look binary; a file without extension is accepted when its content sniffs
// as text or HTML. It returns false for anything else, which callers list as
// skipped. MediaType is safe for concurrent use.
func MediaType(name string, data []byte) (string, bool) {
	head := data[:min(len(data), 1024)]
	if isPDF(head) {
		return TypePDF, true
	}
	ext := strings.ToLower(filepath.Ext(name))
	if t, ok := extTypes[ext]; ok {
		if binaryTypes[t] {
			return t, true // a broken file is reported as malformed, not skipped
		}
		if _, text := markup.DecodeText(head); !text {
			return "", false
		}
		return t, true
	}
	if ext != "" {
		return "", false
	}
	switch sniff := http.DetectContentType(head); {
	case strings.HasPrefix(sniff, "text/html"):
		return TypeHTML, true
	case strings.HasPrefix(sniff, "text/plain"):
		return TypeText, true
	}
	return "", false
}

// isPDF reports whether the header "%PDF-" appears in the first KiB, where
// readers accept it (some files carry junk before it).
func isPDF(head []byte) bool {
	return bytes.Contains(head, []byte("%PDF-"))
}
