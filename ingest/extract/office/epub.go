package office

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/mcpvec/mcpvec/ingest/extract/markup"
)

// opfHandler reads an EPUB package document: the manifest (id to href)
// and the spine (reading order of ids).
type opfHandler struct {
	opf      string
	manifest map[string]string
	spine    []string
}

func (h *opfHandler) start(e xml.StartElement) bool {
	switch e.Name.Local {
	case "item":
		href := xmlAttr(e, "href")
		if u, err := url.PathUnescape(href); err == nil {
			href = u
		}
		href, _, _ = strings.Cut(href, "#")
		h.manifest[xmlAttr(e, "id")] = resolve(h.opf, href)
	case "itemref":
		h.spine = append(h.spine, xmlAttr(e, "idref"))
	}
	return false
}
func (h *opfHandler) end(xml.EndElement) {}
func (h *opfHandler) chars(string)       {}

// rootfileHandler finds the package document in META-INF/container.xml.
type rootfileHandler struct{ path string }

func (h *rootfileHandler) start(e xml.StartElement) bool {
	if e.Name.Local == "rootfile" && h.path == "" {
		h.path = xmlAttr(e, "full-path")
	}
	return false
}
func (h *rootfileHandler) end(xml.EndElement) {}
func (h *rootfileHandler) chars(string)       {}

// extractEPUB returns one page per spine document that has text, in
// reading order, with its h1-h6 headings, and the package's dc:title. Each spine document is
// (X)HTML and goes through the HTML extractor. Hrefs are resolved inside
// the archive only.
func extractEPUB(a *archive) (*core.Document, error) {
	root := &rootfileHandler{}
	if err := a.walk("META-INF/container.xml", root); err != nil {
		return nil, fmt.Errorf("container: %w", err)
	}
	h := &opfHandler{opf: root.path, manifest: map[string]string{}}
	if err := a.walk(root.path, h); err != nil {
		return nil, fmt.Errorf("package document: %w", err)
	}
	doc := &core.Document{Title: partTitle(a, root.path), Created: partDate(a, root.path, "date")}
	for _, id := range h.spine {
		part, ok := h.manifest[id]
		if !ok || !a.has(part) {
			continue
		}
		chapter, err := a.read(part)
		if err != nil {
			return nil, err
		}
		h, err := markup.HTML(chapter, a.budget)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", part, err)
		}
		if text := core.CleanText(h.Text); text != "" {
			core.AddUnit(doc, text, h.Headings...)
		}
	}
	return core.Paged(doc), nil
}
