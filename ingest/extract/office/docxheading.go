package office

import (
	"encoding/xml"
	"regexp"
	"strconv"
	"strings"
)

// docxStyle is what word/styles.xml says about one paragraph style.
type docxStyle struct {
	name, basedOn string
	outline       int // w:outlineLvl + 1, or 0 when the style sets none
}

// stylesHandler reads the paragraph styles of word/styles.xml.
type stylesHandler struct {
	styles map[string]*docxStyle
	cur    *docxStyle
}

func (h *stylesHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "style":
		h.cur = nil
		if xmlAttr(e, "type") == "paragraph" {
			h.cur = &docxStyle{}
			h.styles[xmlAttr(e, "styleId")] = h.cur
		}
	case "name", "basedOn", "outlineLvl":
		h.setField(e)
	}
	return false
}

func (h *stylesHandler) setField(e xml.StartElement) {
	if h.cur == nil {
		return
	}
	v := xmlAttr(e, "val")
	switch e.Name.Local {
	case "name":
		h.cur.name = v
	case "basedOn":
		h.cur.basedOn = v
	case "outlineLvl":
		h.cur.outline = outlineLevel(v)
	}
}

func (h *stylesHandler) end(e xml.EndElement) {
	if e.Name.Local == "style" {
		h.cur = nil
	}
}
func (h *stylesHandler) chars(string) {}

// outlineLevel turns a w:outlineLvl value (0-8; 9 is body text) into a
// heading level, 0 meaning none.
func outlineLevel(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 8 {
		return 0
	}
	return n + 1
}

var headingName = regexp.MustCompile(`(?i)^heading ?([1-9])$`)

// docxHeadingStyles maps paragraph style ids to heading levels: the style's
// outline level (inherited through basedOn), else its built-in name
// ("heading 2", "Title"), which localised Word files keep while their
// style ids change. A Title style is level 0. A missing or unreadable
// styles part falls back to the usual English ids Heading1..Heading9, Title.
func docxHeadingStyles(a *archive) map[string]int {
	levels := map[string]int{"Title": 0}
	for i := 1; i <= 9; i++ {
		levels["Heading"+strconv.Itoa(i)] = i
	}
	h := &stylesHandler{styles: map[string]*docxStyle{}}
	if a.walk("word/styles.xml", h) != nil {
		return levels
	}
	levels = map[string]int{}
	for id := range h.styles {
		if lv, ok := styleLevel(h.styles, id); ok {
			levels[id] = lv
		}
	}
	return levels
}

// styleLevel resolves the heading level of style id, following basedOn up
// to ten styles deep (cycles end there).
func styleLevel(styles map[string]*docxStyle, id string) (int, bool) {
	for range 10 {
		s, ok := styles[id]
		if !ok {
			return 0, false
		}
		switch m := headingName.FindStringSubmatch(s.name); {
		case s.outline > 0:
			return s.outline, true
		case m != nil:
			return int(m[1][0] - '0'), true
		case strings.EqualFold(s.name, "title"):
			return 0, true
		}
		id = s.basedOn
	}
	return 0, false
}

// docxPara follows the top-level paragraph being read, to record it as a
// heading when its style or direct formatting gives it an outline level.
type docxPara struct {
	levels map[string]int // style id to heading level
	head   headingText    // the paragraph, level -1 while it is body text
}

func (p *docxPara) start(e xml.StartElement) {
	switch e.Name.Local {
	case "p":
		p.head.begin("p", -1)
	case "pStyle":
		if lv, ok := p.levels[xmlAttr(e, "val")]; ok && p.head.depth == 1 {
			p.head.level = lv
		}
	case "outlineLvl":
		if lv := outlineLevel(xmlAttr(e, "val")); lv > 0 && p.head.depth == 1 {
			p.head.level = lv
		}
	}
}
