package office

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// drawingHandler reads DrawingML text (a slide or its notes): a:p
// paragraphs, a:t runs, a:br breaks and a:tbl tables, in the order of the
// shape tree. Fields (slide numbers, dates) are skipped. The text of a
// title placeholder shape is also kept as a level-1 heading.
type drawingHandler struct {
	runText
	head headingText // the shape being read, level -1 unless it is a title
}

func (h *drawingHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "sp":
		h.head.begin("sp", -1)
	case "ph":
		if t := xmlAttr(e, "type"); (t == "title" || t == "ctrTitle") && h.head.depth == 1 {
			h.head.level = 1
		}
	case "t":
		h.inText = true
	case "br":
		h.f.Line()
	case "tbl":
		h.f.StartTable()
	case "tr":
		h.f.StartRow()
	case "fld", "Fallback":
		return true
	}
	return false
}

func (h *drawingHandler) end(e xml.EndElement) {
	h.head.end(e.Name.Local)
	h.runText.end(e)
}

func (h *drawingHandler) chars(s string) {
	if h.inText {
		h.head.chars(s, 0)
	}
	h.runText.chars(s)
}

// idListHandler collects the r:id attributes of the elements called local
// (p:sldId in presentation.xml, sheet in workbook.xml), with their name
// attribute.
type idListHandler struct {
	local string
	ids   []string
	names []string
}

func (h *idListHandler) start(e xml.StartElement) bool {
	if e.Name.Local == h.local {
		for _, a := range e.Attr {
			if a.Name.Local == "id" && a.Name.Space != "" { // r:id, not the numeric id
				h.ids = append(h.ids, a.Value)
				h.names = append(h.names, xmlAttr(e, "name"))
			}
		}
	}
	return false
}
func (h *idListHandler) end(xml.EndElement) {}
func (h *idListHandler) chars(string)       {}

// orderedParts reads the list of local elements in part and resolves each
// r:id through part's relationships; ids without a target are dropped.
func orderedParts(a *archive, part, local string) (parts, names []string, err error) {
	h := &idListHandler{local: local}
	if err := a.walk(part, h); err != nil {
		return nil, nil, err
	}
	targets, _, err := rels(a, part)
	if err != nil {
		return nil, nil, err
	}
	for i, id := range h.ids {
		if t, ok := targets[id]; ok && a.has(t) {
			parts, names = append(parts, t), append(names, h.names[i])
		}
	}
	return parts, names, nil
}

// extractPPTX returns one page per slide, in presentation order: the
// slide's text followed by its speaker notes after "Notes:", with the
// slide's title as its heading.
func extractPPTX(a *archive) (*core.Document, error) {
	slides, _, err := orderedParts(a, "ppt/presentation.xml", "sldId")
	if err != nil {
		return nil, err
	}
	doc := &core.Document{Title: coreTitle(a), Created: coreCreated(a)}
	for _, s := range slides {
		text, heads, err := slideText(a, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		core.AddUnit(doc, text, heads...)
	}
	return core.Paged(doc), nil
}

// slideText is the cleaned text of one slide and its notes, and the
// slide's title shapes (Page 0).
func slideText(a *archive, slide string) (string, []core.Heading, error) {
	text, heads, err := drawingText(a, slide)
	if err != nil {
		return "", nil, err
	}
	targets, types, err := rels(a, slide)
	if err != nil {
		return "", nil, err
	}
	for id, typ := range types {
		if typ != "notesSlide" || !a.has(targets[id]) {
			continue
		}
		notes, _, err := drawingText(a, targets[id])
		if err != nil {
			return "", nil, err
		}
		if notes != "" {
			text = strings.TrimSpace(text + "\n\nNotes: " + notes)
		}
	}
	return text, heads, nil
}

func drawingText(a *archive, part string) (string, []core.Heading, error) {
	f := &core.Flow{Budget: a.budget}
	h := &drawingHandler{runText: runText{f: f}}
	if err := a.walk(part, h); err != nil {
		return "", nil, err
	}
	return strings.Join(f.Finish(), "\n\n"), h.head.heads, nil
}
