package office

import (
	"encoding/xml"
	"slices"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// noteKinds are the Word parts whose notes are anchored in the body by a
// reference element, and the label each note gets where it is placed.
var noteKinds = []struct{ relType, elem, ref, label string }{
	{"footnotes", "footnote", "footnoteReference", "Footnote: "},
	{"endnotes", "endnote", "endnoteReference", "Endnote: "},
	{"comments", "comment", "commentReference", "Comment: "},
}

// notesHandler reads word/footnotes.xml, endnotes.xml or comments.xml: the
// text of each w:footnote (w:endnote, w:comment) by its w:id. Separator
// notes (Word's rule above footnotes) are skipped.
type notesHandler struct {
	docxHandler
	elem  string
	id    string
	depth int
	notes map[string]string // id to text
}

func (h *notesHandler) start(e xml.StartElement) bool {
	if e.Name.Local == h.elem {
		if h.depth == 0 && strings.Contains(strings.ToLower(xmlAttr(e, "type")), "separator") {
			return true // a skipped subtree's end is not seen
		}
		if h.depth++; h.depth == 1 {
			h.id, h.f = xmlAttr(e, "id"), &core.Flow{}
			return false
		}
	}
	if h.depth == 0 {
		return false
	}
	return h.docxHandler.start(e)
}

func (h *notesHandler) end(e xml.EndElement) {
	if h.depth == 0 {
		return
	}
	if e.Name.Local == h.elem {
		if h.depth--; h.depth == 0 {
			h.notes[h.id] = strings.TrimSpace(strings.Join(h.f.Finish(), "\n\n"))
		}
		return
	}
	h.docxHandler.end(e)
}

func (h *notesHandler) chars(s string) {
	if h.depth > 0 {
		h.docxHandler.chars(s)
	}
}

// docxParts is what word/document.xml's relationships lead to: the notes
// of each kind by id ("footnoteReference" to id to text) and the header
// and footer parts in name order.
type docxParts struct {
	notes           map[string]map[string]string
	headers, footer []string
}

// readDocxParts reads the footnotes, endnotes and comments parts the
// document refers to and lists its headers and footers. A missing part is
// no notes; a broken one fails as walk does.
func readDocxParts(a *archive) (*docxParts, error) {
	targets, types, err := rels(a, "word/document.xml")
	if err != nil {
		return nil, err
	}
	p := &docxParts{notes: map[string]map[string]string{}}
	for id, typ := range types {
		switch t := targets[id]; {
		case !a.has(t):
		case typ == "header":
			p.headers = append(p.headers, t)
		case typ == "footer":
			p.footer = append(p.footer, t)
		}
	}
	slices.Sort(p.headers)
	slices.Sort(p.footer)
	for _, k := range noteKinds {
		for id, typ := range types {
			if typ != k.relType || !a.has(targets[id]) {
				continue
			}
			h := &notesHandler{elem: k.elem, notes: map[string]string{}}
			if err := a.walk(targets[id], h); err != nil {
				return nil, err
			}
			p.notes[k.ref] = h.notes
		}
	}
	return p, nil
}

// noteFor returns the labelled text of the note a reference element
// points to, or "" when there is none (or p is nil).
func (p *docxParts) noteFor(e xml.StartElement) string {
	if p == nil {
		return ""
	}
	for _, k := range noteKinds {
		if k.ref == e.Name.Local {
			if t := p.notes[k.ref][xmlAttr(e, "id")]; t != "" {
				return k.label + t
			}
		}
	}
	return ""
}

// writeMargins appends the text of the headers, then the footers, to f,
// each distinct text once: Word repeats them on every page, the index
// needs them once.
func (p *docxParts) writeMargins(a *archive, f *core.Flow) error {
	seen := map[string]bool{}
	for i, parts := range [][]string{p.headers, p.footer} {
		for _, part := range parts {
			mf := &core.Flow{}
			if err := a.walk(part, &docxHandler{runText: runText{f: mf}}); err != nil {
				return err
			}
			text := strings.TrimSpace(strings.Join(mf.Finish(), "\n\n"))
			if text == "" || seen[text] {
				continue
			}
			seen[text] = true
			f.Text([]string{"Header: ", "Footer: "}[i] + text)
			f.Para()
		}
	}
	return nil
}
