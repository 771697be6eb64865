package pdf

import (
	"log/slog"

	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// outline reads the document's bookmarks as headings: a top-level bookmark
// is level 1, its children level 2, and so on. A bookmark is placed on the
// page its destination (or GoTo action) names; one without a page in the
// document is left out, and so are bookmarks nested deeper than
// core.MaxHeadingLevel. At most core.MaxHeadings bookmarks are visited, which also
// ends a cyclic outline, and a bookmark repeating an earlier one's level,
// title and page is dropped. Offsets are set later, by placeHeadings.
func (s *session) outline(d references.FPDF_DOCUMENT, pages int) []core.Heading {
	type item struct {
		ref   references.FPDF_BOOKMARK
		level int
	}
	var heads []core.Heading
	var stack []item
	seen := map[core.Heading]bool{}
	push := func(parent *references.FPDF_BOOKMARK, level int) {
		first, err := s.inst.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: d, Bookmark: parent})
		if err != nil || first.Bookmark == nil || level > core.MaxHeadingLevel {
			return
		}
		// Siblings are pushed in reverse so the stack pops them in order.
		var siblings []item
		for b := first.Bookmark; b != nil && len(siblings)+len(heads) < core.MaxHeadings; {
			siblings = append(siblings, item{*b, level})
			next, err := s.inst.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: d, Bookmark: *b})
			if err != nil {
				break
			}
			b = next.Bookmark
		}
		for i := len(siblings) - 1; i >= 0; i-- {
			stack = append(stack, siblings[i])
		}
	}
	push(nil, 1)
	for visited := 0; len(stack) > 0 && visited < core.MaxHeadings; visited++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h, ok := s.bookmark(d, it.ref, pages); ok {
			h.Level = it.level
			if !seen[h] {
				seen[h] = true
				heads = append(heads, h)
			}
		}
		push(&it.ref, it.level+1)
	}
	return heads
}

// bookmark returns the title and page of one bookmark.
func (s *session) bookmark(d references.FPDF_DOCUMENT, b references.FPDF_BOOKMARK, pages int) (core.Heading, bool) {
	title, err := s.inst.FPDFBookmark_GetTitle(&requests.FPDFBookmark_GetTitle{Bookmark: b})
	if err != nil {
		return core.Heading{}, false
	}
	var dest *references.FPDF_DEST
	if r, err := s.inst.FPDFBookmark_GetDest(&requests.FPDFBookmark_GetDest{Document: d, Bookmark: b}); err == nil {
		dest = r.Dest
	}
	if dest == nil {
		act, err := s.inst.FPDFBookmark_GetAction(&requests.FPDFBookmark_GetAction{Bookmark: b})
		if err != nil || act.Action == nil {
			return core.Heading{}, false
		}
		r, err := s.inst.FPDFAction_GetDest(&requests.FPDFAction_GetDest{Document: d, Action: *act.Action})
		if err != nil || r.Dest == nil {
			return core.Heading{}, false
		}
		dest = r.Dest
	}
	page, err := s.inst.FPDFDest_GetDestPageIndex(&requests.FPDFDest_GetDestPageIndex{Document: d, Dest: *dest})
	if err != nil || page.Index < 0 || page.Index >= pages {
		slog.Debug("pdf bookmark without a page", "title", title.Title, "err", err)
		return core.Heading{}, false
	}
	return core.Heading{Title: title.Title, Page: page.Index}, true
}
