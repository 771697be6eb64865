package extract

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// drawingHandler reads DrawingML text (a slide or its notes): a:p
// paragraphs, a:t runs, a:br breaks and a:tbl tables, in the order of the
// shape tree. Fields (slide numbers, dates) are skipped.
type drawingHandler struct{ runText }

func (h *drawingHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "t":
		h.inText = true
	case "br":
		h.f.line()
	case "tbl":
		h.f.startTable()
	case "tr":
		h.f.startRow()
	case "fld", "Fallback":
		return true
	}
	return false
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
	data, err := a.read(part)
	if err != nil {
		return nil, nil, err
	}
	h := &idListHandler{local: local}
	if err := walkXML(data, h); err != nil {
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
// slide's text followed by its speaker notes after "Notes:".
func extractPPTX(a *archive) (*Document, error) {
	slides, _, err := orderedParts(a, "ppt/presentation.xml", "sldId")
	if err != nil {
		return nil, err
	}
	doc := &Document{Title: coreTitle(a)}
	for _, s := range slides {
		text, err := slideText(a, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		doc.Pages = append(doc.Pages, text)
	}
	if len(doc.Pages) == 0 {
		doc.Pages = []string{""}
	}
	return doc, nil
}

// slideText is the cleaned text of one slide and its notes.
func slideText(a *archive, slide string) (string, error) {
	text, err := drawingText(a, slide)
	if err != nil {
		return "", err
	}
	targets, types, err := rels(a, slide)
	if err != nil {
		return "", err
	}
	for id, typ := range types {
		if typ != "notesSlide" || !a.has(targets[id]) {
			continue
		}
		notes, err := drawingText(a, targets[id])
		if err != nil {
			return "", err
		}
		if notes != "" {
			text = strings.TrimSpace(text + "\n\nNotes: " + notes)
		}
	}
	return text, nil
}

func drawingText(a *archive, part string) (string, error) {
	data, err := a.read(part)
	if err != nil {
		return "", err
	}
	f := &flow{}
	if err := walkXML(data, &drawingHandler{runText{f: f}}); err != nil {
		return "", err
	}
	return strings.Join(f.finish(), "\n\n"), nil
}
