package office

import (
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// headingText collects the text of one heading element at a time (an ODT
// text:h, a slide's title shape) into Headings; elements of the same name
// nested inside it are part of it.
type headingText struct {
	elem  string // local name of the element being read, "" when none
	depth int    // nesting of elem inside itself
	level int
	page  int
	text  strings.Builder
	heads []core.Heading
}

// begin starts a heading at element elem, unless one is being read.
func (h *headingText) begin(elem string, level int) {
	if h.elem != "" {
		if elem == h.elem {
			h.depth++
		}
		return
	}
	h.elem, h.depth, h.level = elem, 1, level
	h.text.Reset()
}

// chars adds text lying on page page.
func (h *headingText) chars(s string, page int) {
	if h.elem == "" {
		return
	}
	if strings.TrimSpace(h.text.String()) == "" {
		h.page = page
	}
	h.text.WriteString(s)
}

// end closes elem; the heading is kept when it has text and a level.
func (h *headingText) end(elem string) {
	if h.elem == "" || elem != h.elem {
		return
	}
	if h.depth--; h.depth > 0 {
		return
	}
	h.elem = ""
	if h.level >= 0 && strings.TrimSpace(h.text.String()) != "" {
		h.heads = append(h.heads, core.Heading{Level: h.level, Title: h.text.String(), Page: h.page})
	}
}
