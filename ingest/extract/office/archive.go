package office

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"golang.org/x/net/html/charset"
)

// Limits on what an Office or EPUB archive may expand to. A real document
// stays far below them; a zip bomb does not.
const (
	maxZipEntries    = 20000
	maxEntryBytes    = 64 << 20  // one XML part
	maxArchiveBytes  = 256 << 20 // all parts read from one file
	maxZipRatio      = 200       // uncompressed/compressed for entries over ratioFloor
	zipRatioFloor    = 1 << 20   // small entries may compress well (runs of spaces)
	maxXMLDepth      = 512
	maxRepeatedCells = 64 // ODF number-columns-repeated and number-rows-repeated expansion
)

// errMissingPart means a part named by the archive's own index is absent.
var errMissingPart = errors.New("missing part")

// archive is a ZIP file read into memory. Parts are looked up by exact
// name only: no entry name is ever used as a file-system path, so "../"
// entries cannot reach outside the archive; names that are not local
// (absolute, "..", backslashes) are dropped when the archive is opened.
type archive struct {
	files  map[string]*zip.File
	used   int64        // uncompressed bytes read so far, bounded by maxArchiveBytes
	budget *core.Budget // the text the document may produce; walk stops when it is spent
}

// openArchive checks the central directory against the limits; parts are
// only decompressed when read. The document's text is charged to b.
func openArchive(data []byte, b *core.Budget) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: zip: %v", core.ErrMalformed, err)
	}
	if len(zr.File) > maxZipEntries {
		return nil, fmt.Errorf("%w: archive has %d entries, limit %d", core.ErrTooLarge, len(zr.File), maxZipEntries)
	}
	a := &archive{files: make(map[string]*zip.File, len(zr.File)), budget: b}
	for _, f := range zr.File {
		if !localName(f.Name) {
			continue
		}
		a.files[f.Name] = f
	}
	return a, nil
}

// localName reports whether an entry name stays inside the archive's root.
func localName(name string) bool {
	return name != "" && !strings.HasPrefix(name, "/") && !strings.Contains(name, `\`) &&
		path.Clean(name) == name && name != ".." && !strings.HasPrefix(name, "../")
}

// has reports whether the archive holds a part called name.
func (a *archive) has(name string) bool { _, ok := a.files[name]; return ok }

// read returns the uncompressed bytes of the part called name. It fails
// with core.ErrTooLarge when the part or the archive so far expands past the
// limits, or the part's compression ratio looks like a bomb; the sizes in
// the header are not trusted, the bytes actually inflated are counted.
func (a *archive) read(name string) ([]byte, error) {
	f, ok := a.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", errMissingPart, name)
	}
	if err := checkRatio(name, f.UncompressedSize64, f.CompressedSize64); err != nil {
		return nil, err
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", core.ErrMalformed, name, err)
	}
	defer rc.Close()
	limit := min(int64(maxEntryBytes), maxArchiveBytes-a.used)
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	a.used += int64(len(b))
	switch {
	case int64(len(b)) > limit:
		return nil, fmt.Errorf("%w: %s expands past %d bytes (zip bomb?)", core.ErrTooLarge, name, limit)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", core.ErrMalformed, name, err)
	}
	return b, checkRatio(name, uint64(len(b)), f.CompressedSize64)
}

// walk reads the part name and streams it through h; the errors are read's
// and walkXML's.
func (a *archive) walk(name string, h xmlHandler) error {
	data, err := a.read(name)
	if err != nil {
		return err
	}
	return walkXML(data, h, a.budget)
}

func checkRatio(name string, size, compressed uint64) error {
	if size > zipRatioFloor && size/max(compressed, 1) > maxZipRatio {
		return fmt.Errorf("%w: %s compresses %d:1 (zip bomb?)", core.ErrTooLarge, name, size/max(compressed, 1))
	}
	return nil
}

// resolve joins a relative reference (a relationship target or an EPUB
// href) to the folder of the part that made it. Absolute targets ("/x")
// are relative to the archive root. The result may name no part.
func resolve(from, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.TrimPrefix(path.Clean(target), "/")
	}
	return path.Join(path.Dir(from), target)
}

// xmlHandler receives the tokens of one XML part: start and end elements
// and character data. skip reports, for a start element, that its whole
// subtree should be ignored.
type xmlHandler interface {
	start(e xml.StartElement) (skip bool)
	end(e xml.EndElement)
	chars(s string)
}

// walkXML streams data through h. encoding/xml expands only the five
// predefined entities and character references: an entity defined in a
// DTD is an error in strict mode, so entity-expansion bombs (billion
// laughs) fail instead of growing. A DOCTYPE that declares entities is
// refused outright, and nesting deeper than maxXMLDepth is malformed. The
// walk stops with b's core.ErrExpansion error as soon as the handlers have
// spent the expansion budget b (nil: unlimited).
func walkXML(data []byte, h xmlHandler, b *core.Budget) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.CharsetReader = charset.NewReaderLabel // a UTF-16 or Latin-1 part
	depth, skipAt := 0, 0
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: xml: %v", core.ErrMalformed, err)
		}
		if err := b.Err(); err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxXMLDepth {
				return fmt.Errorf("%w: xml nested deeper than %d", core.ErrMalformed, maxXMLDepth)
			}
			if skipAt == 0 && h.start(t) {
				skipAt = depth
			}
		case xml.EndElement:
			if depth == 0 {
				return fmt.Errorf("%w: xml: unexpected </%s>", core.ErrMalformed, t.Name.Local)
			}
			if skipAt == 0 {
				h.end(t)
			} else if skipAt == depth {
				skipAt = 0
			}
			depth--
		case xml.CharData:
			if skipAt == 0 {
				h.chars(string(t))
			}
		case xml.Directive:
			if bytes.Contains(t, []byte("ENTITY")) {
				return fmt.Errorf("%w: xml declares entities", core.ErrMalformed)
			}
		}
	}
}
