package office

import (
	"encoding/xml"
	"path"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// attr returns the value of the attribute with local name local.
func xmlAttr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// docxHandler reads word/document.xml. Elements are matched by local name
// (w:p, w:t, ...), since writers use the conventional prefixes.
type docxHandler struct {
	runText
	para    docxPara
	parts   *docxParts // notes to place after the paragraph citing them; nil in notes and margins
	pending []string   // labelled notes cited in the paragraph being read
}

func (h *docxHandler) start(e xml.StartElement) bool {
	h.para.start(e)
	switch e.Name.Local {
	case "t":
		h.inText = true
	case "tab":
		h.f.Text("\t")
	case "br", "cr":
		if xmlAttr(e, "type") == "page" {
			h.f.PageBreak()
		} else {
			h.f.Line()
		}
	case "lastRenderedPageBreak", "pageBreakBefore":
		h.f.PageBreak()
	case "tbl":
		h.f.StartTable()
	case "tr":
		h.f.StartRow()
	case "footnoteReference", "endnoteReference", "commentReference":
		if n := h.parts.noteFor(e); n != "" {
			h.pending = append(h.pending, n)
		}
		return true
	case "delText", "instrText", "Fallback":
		return true // deleted text, field codes, duplicate text-box renderings
	}
	return false
}

// end closes an element; a paragraph that cited notes is followed by them,
// each a paragraph of its own, so a note stays beside the text it
// annotates (and on its page).
func (h *docxHandler) end(e xml.EndElement) {
	h.para.head.end(e.Name.Local)
	h.runText.end(e)
	if e.Name.Local == "p" {
		for _, n := range h.pending {
			h.f.Text(n)
			h.f.Para()
		}
		h.pending = h.pending[:0]
	}
}

func (h *docxHandler) chars(s string) {
	if h.inText {
		h.para.head.chars(s, h.f.PageCount())
	}
	h.runText.chars(s)
}

// runText is what Word and DrawingML share: runs of text in t elements,
// paragraphs in p, and tables of tr rows and tc cells.
type runText struct {
	f      *core.Flow
	inText bool
}

func (h *runText) end(e xml.EndElement) {
	switch e.Name.Local {
	case "t":
		h.inText = false
	case "p":
		h.f.Para()
	case "tc":
		h.f.EndCell()
	case "tr":
		h.f.EndRow()
	case "tbl":
		h.f.EndTable()
	}
}

func (h *runText) chars(s string) {
	if h.inText {
		h.f.Text(s)
	}
}

// extractDOCX returns the body text of a Word document, split into pages
// where Word recorded page breaks (explicit breaks, page-break-before, and
// the breaks Word saw when it last laid the document out). Footnotes,
// endnotes and comments follow the paragraph that cites them; the
// headers and footers come once, after the body.
func extractDOCX(a *archive) (*core.Document, error) {
	parts, err := readDocxParts(a)
	if err != nil {
		return nil, err
	}
	f := &core.Flow{Budget: a.budget}
	h := &docxHandler{runText: runText{f: f}, para: docxPara{levels: docxHeadingStyles(a)}, parts: parts}
	if err := a.walk("word/document.xml", h); err != nil {
		return nil, err
	}
	if err := parts.writeMargins(a, f); err != nil {
		return nil, err
	}
	return &core.Document{Title: coreTitle(a), Created: coreCreated(a), Pages: f.Finish(), Headings: h.para.head.heads}, nil
}

// titleHandler captures the text of the first element called local
// (dc:title in docProps/core.xml, meta.xml and EPUB package files).
type titleHandler struct {
	local string
	in    bool
	done  bool
	b     strings.Builder
}

func (h *titleHandler) start(e xml.StartElement) bool {
	h.in = !h.done && e.Name.Local == h.local
	return false
}

func (h *titleHandler) end(e xml.EndElement) {
	if h.in && e.Name.Local == h.local {
		h.in, h.done = false, true
	}
}

func (h *titleHandler) chars(s string) {
	if h.in {
		h.b.WriteString(s)
	}
}

// partTitle returns the cleaned dc:title of the XML part name, or "" when
// the part is missing or unreadable (a title is never worth failing for).
func partTitle(a *archive, name string) string {
	return core.CleanTitle(partText(a, name, "title"))
}

// partDate returns the W3CDTF date in the first element called local of
// the XML part name, or the zero time when the part is missing or
// unreadable or the date does not parse.
func partDate(a *archive, name, local string) time.Time {
	return core.ParseW3CDate(partText(a, name, local))
}

// partText is the text of the first element called local in the XML part
// name, or "" when there is none or the part is missing or unreadable.
func partText(a *archive, name, local string) string {
	h := &titleHandler{local: local}
	if a.walk(name, h) != nil {
		return ""
	}
	return h.b.String()
}

// coreTitle is the title in an OOXML file's docProps/core.xml.
func coreTitle(a *archive) string { return partTitle(a, "docProps/core.xml") }

// coreCreated is dcterms:created in an OOXML file's docProps/core.xml.
func coreCreated(a *archive) time.Time { return partDate(a, "docProps/core.xml", "created") }

// relsHandler reads a .rels part: relationship Id to target part name.
type relsHandler struct {
	from    string
	targets map[string]string
	types   map[string]string
}

func (h *relsHandler) start(e xml.StartElement) bool {
	if e.Name.Local == "Relationship" && xmlAttr(e, "TargetMode") != "External" {
		id := xmlAttr(e, "Id")
		h.targets[id] = resolve(h.from, xmlAttr(e, "Target"))
		h.types[id] = path.Base(xmlAttr(e, "Type"))
	}
	return false
}
func (h *relsHandler) end(xml.EndElement) {}
func (h *relsHandler) chars(string)       {}

// rels returns the relationships of part: id to resolved target and id to
// relationship type (the last segment, e.g. "notesSlide"). A missing rels
// part is no relationships.
func rels(a *archive, part string) (targets, types map[string]string, err error) {
	name := path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	h := &relsHandler{from: part, targets: map[string]string{}, types: map[string]string{}}
	if !a.has(name) {
		return h.targets, h.types, nil
	}
	if err := a.walk(name, h); err != nil {
		return nil, nil, err
	}
	return h.targets, h.types, nil
}
