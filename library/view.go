package library

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/store"
)

// View is a document's extracted text divided into its units (pages,
// slides, sheets, chapters), for the server's HTML view of documents whose
// original cannot open at a page. Anchors are the fragment ids that
// SearchResult.Anchor and FetchResponse.Anchor point at.
type View struct {
	ID, Title, MediaType string
	// Name is the original's file name, without its folder.
	Name string
	// Paged is true when the original opens at its pages (a PDF), so a
	// citation links to it rather than to the view.
	Paged bool
	Units []ViewUnit
}

// ViewUnit is one unit of a View. Anchor is its fragment id ("slide-3");
// Heading names it ("Slide 3", "Sheet: Revenue", "Chapter 2", "Page 3"),
// or is "" when the document has a single unit.
type ViewUnit struct {
	Anchor, Heading string
	Parts           []ViewPart
}

// ViewPart is a run of a unit's text. Passage, when set, is the passage
// starting at its beginning and Anchor its fragment id ("passage-4").
type ViewPart struct {
	Anchor, Text string
	Passage      *store.Chunk
}

// Media types whose units are not pages (the strings ingest/extract reports).
const (
	typePPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	typeODP  = "application/vnd.oasis.opendocument.presentation"
	typeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	typeODS  = "application/vnd.oasis.opendocument.spreadsheet"
	typeEPUB = "application/epub+zip"
)

// unitKind is what a media type's units are called: the fragment prefix
// and the heading noun; a sheet is named by its first line (the sheet
// name extract puts there).
type unitKind struct {
	anchor, noun string
	named        bool
}

func kindOf(mediaType string) unitKind {
	switch mediaType {
	case typePPTX, typeODP:
		return unitKind{anchor: "slide", noun: "Slide"}
	case typeXLSX, typeODS:
		return unitKind{anchor: "sheet", noun: "Sheet", named: true}
	case typeEPUB:
		return unitKind{anchor: "chapter", noun: "Chapter"}
	}
	return unitKind{anchor: "page", noun: "Page"}
}

func (k unitKind) anchorOf(n int) string { return k.anchor + "-" + strconv.Itoa(n) }

// heading names unit n whose text is text.
func (k unitKind) heading(n int, text string) string {
	if k.named {
		name, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		if name = strings.TrimSpace(name); name != "" {
			name, _ = CutText(name, 100)
			return k.noun + ": " + name
		}
	}
	return k.noun + " " + strconv.Itoa(n)
}

func passageAnchor(index int) string { return "passage-" + strconv.Itoa(index) }

// viewAnchor is where in the View a reader of passage c, whose best match
// lies at byte off of the document's text, should land: the unit holding
// off when the document has several units, else the passage itself.
func viewAnchor(d *store.Document, c *store.Chunk, off int) string {
	if len(d.PageStarts) > 1 {
		return kindOf(d.MediaType).anchorOf(d.PageOf(off))
	}
	return passageAnchor(c.Index)
}

// View returns document id's text unit by unit with its passages marked,
// or ErrNotFound. It is safe for concurrent use.
func (l *Library) View(ctx context.Context, id string) (*View, error) {
	d, chunks, err := l.Document(ctx, id)
	if err != nil {
		return nil, err
	}
	return NewView(d, chunks), nil
}

// NewView divides d's text into its units and marks where each of chunks
// (d's passages, in order) starts.
func NewView(d *store.Document, chunks []*store.Chunk) *View {
	starts := d.PageStarts
	if len(starts) == 0 {
		starts = []int{0}
	}
	k := kindOf(d.MediaType)
	v := &View{ID: d.ID, Title: d.Title, MediaType: d.MediaType, Name: filepath.Base(d.SourcePath),
		Paged: isPaged(d), Units: make([]ViewUnit, 0, len(starts))}
	for i, ps := range starts {
		pe := len(d.Text)
		if i+1 < len(starts) {
			pe = starts[i+1]
		}
		ps = min(ps, len(d.Text))
		pe = min(max(pe, ps), len(d.Text)) // page starts out of order must not panic
		u := ViewUnit{Anchor: k.anchorOf(i + 1), Parts: SplitAtPassages(d.Text, ps, pe, chunks)}
		if len(starts) > 1 {
			u.Heading = k.heading(i+1, d.Text[ps:pe])
		}
		v.Units = append(v.Units, u)
	}
	return v
}

// SplitAtPassages cuts text[ps:pe] (a unit of a document's text) at the
// start of every passage of chunks, in order, that starts inside it.
func SplitAtPassages(text string, ps, pe int, chunks []*store.Chunk) []ViewPart {
	var parts []ViewPart
	cur := ps
	var at *store.Chunk
	part := func(end int) ViewPart {
		p := ViewPart{Text: text[cur:end], Passage: at}
		if at != nil {
			p.Anchor = passageAnchor(at.Index)
		}
		return p
	}
	for _, c := range chunks {
		if c.Start < ps || c.Start >= pe || c.Start < cur {
			continue
		}
		if c.Start > cur || at != nil {
			parts = append(parts, part(c.Start))
		}
		cur, at = c.Start, c
	}
	return append(parts, part(pe))
}
