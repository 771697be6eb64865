package library

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/store"
)

// FetchOptions overrides the library's defaults for one fetch.
type FetchOptions struct {
	// MaxChars caps the text in characters (0: Options.MaxFetchChars).
	MaxChars int
}

// Fetch returns a passage with the pages it lies on (or its neighbouring
// passages for documents without pages), or a whole document, capped at
// fo.MaxChars with metadata.truncated set when cut: it is the one place
// fetched text is cut. An unknown id returns ErrNotFound.
func (l *Library) Fetch(ctx context.Context, id string, fo FetchOptions) (*FetchResponse, error) {
	limit := cmp.Or(fo.MaxChars, l.opts.MaxFetchChars)
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, fmt.Errorf("%w: empty id", ErrNotFound)
	}
	if docID, idx, ok := store.ParsePassageID(id); ok {
		return l.fetchPassage(docID, idx, limit)
	}
	d, err := l.be.Document(id, true)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	text, truncated := CutText(d.Text, limit)
	md := docMetadata(d, truncated)
	md["chunks"] = len(d.Chunks)
	if isPaged(d) {
		md["page_start"], md["page_end"] = 1, max(d.Pages, 1)
	}
	page, anchor := 0, ""
	if isPaged(d) {
		page = 1
	} else {
		anchor = kindOf(d.MediaType).anchorOf(1)
	}
	return &FetchResponse{ID: d.ID, Title: d.Title, Text: text, URL: sourceURL(d, 0),
		Metadata: md, DocID: d.ID, Page: page, Anchor: anchor}, nil
}

func (l *Library) fetchPassage(docID string, idx, limit int) (*FetchResponse, error) {
	d, err := l.be.Document(docID, true)
	if errors.Is(err, store.ErrNotFound) || (err == nil && idx >= len(d.Chunks)) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, fmt.Sprintf("%s:%d", docID, idx))
	}
	if err != nil {
		return nil, err
	}
	cs, err := l.be.Chunks([]uint64{d.Chunks[idx]})
	if err != nil {
		return nil, err
	}
	c := cs[0]
	var text string
	page, anchor := 0, viewAnchor(d, c, c.Start)
	if isPaged(d) {
		text = d.PageText(c.PageStart, c.PageEnd)
		page, anchor = c.PageStart, ""
	} else {
		// The passage with its neighbours' text around it.
		lo, hi := c.Start, c.End
		if nb, err := l.be.Chunks(neighbours(d, idx)); err == nil {
			for _, n := range nb {
				lo, hi = min(lo, n.Start), max(hi, n.End)
			}
		}
		text = d.Text[max(lo, 0):min(hi, len(d.Text))]
	}
	text, truncated := CutText(strings.TrimSpace(text), limit)
	md := docMetadata(d, truncated)
	md["chunk_index"] = idx
	md["passage"] = c.Text
	if isPaged(d) {
		md["page_start"], md["page_end"] = c.PageStart, c.PageEnd
	}
	return &FetchResponse{ID: c.ID(), Title: passageTitle(d, c.Headings, c.PageStart, c.PageEnd), Text: text,
		URL: sourceURL(d, page), Metadata: md, DocID: d.ID, Page: page, Anchor: anchor}, nil
}

func neighbours(d *store.Document, idx int) []uint64 {
	var out []uint64
	if idx > 0 {
		out = append(out, d.Chunks[idx-1])
	}
	if idx+1 < len(d.Chunks) {
		out = append(out, d.Chunks[idx+1])
	}
	return out
}

func docMetadata(d *store.Document, truncated bool) map[string]any {
	md := map[string]any{
		"document_id": d.ID,
		"source":      d.SourcePath,
		"media_type":  d.MediaType,
		"truncated":   truncated,
	}
	if d.SourceURL != "" {
		md["source_url"] = d.SourceURL
	}
	if d.Pages > 0 {
		md["pages"] = d.Pages
	}
	return md
}

// CutText cuts text to at most max characters, preferring a word boundary
// near the end and ending with an ellipsis, and reports whether it cut. It is
// the one cut of text for readers (fetch, and the server's instructions).
func CutText(text string, max int) (string, bool) {
	if utf8.RuneCountInString(text) <= max {
		return text, false
	}
	if max < 1 {
		return "", true
	}
	t := cutRunes(text, max-1) // leave room for the ellipsis
	if sp := strings.LastIndexAny(t, " \n\t"); sp > len(t)*9/10 {
		t = t[:sp]
	}
	return strings.TrimRight(t, " \n\t") + "…", true
}

// Original is a document's original file, for the server's /docs links.
type Original struct {
	Name      string // file name to offer
	MediaType string
	// Content reads the file from the library in small pieces (no read
	// transaction is held between reads); it is for one request only.
	Content io.ReadSeeker
	Size    int64
	ModTime time.Time // when the document was ingested
}

// Original opens a document's original file, or returns ErrNotFound. When
// no original was kept, the extracted text stands in for it.
func (l *Library) Original(ctx context.Context, docID string) (*Original, error) {
	d, err := l.be.Document(docID, false)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, docID)
	}
	if err != nil {
		return nil, err
	}
	r, size, mod, err := l.be.Original(docID)
	if errors.Is(err, store.ErrNotFound) {
		text := mustText(l.be, docID)
		return &Original{Name: d.ID + ".txt", MediaType: "text/plain; charset=utf-8",
			Content: strings.NewReader(text), Size: int64(len(text)), ModTime: d.IngestedAt}, nil
	}
	if err != nil {
		return nil, err
	}
	mt := d.MediaType
	if strings.HasPrefix(mt, "text/") {
		mt += "; charset=utf-8"
	}
	return &Original{Name: filepath.Base(d.SourcePath), MediaType: mt, Content: r, Size: size, ModTime: mod}, nil
}

func mustText(be Backend, id string) string {
	d, err := be.Document(id, true)
	if err != nil {
		return ""
	}
	return d.Text
}

// Summary describes the library for the server's instructions.
type Summary struct {
	Documents int
	Chunks    int
	Pages     int
	Titles    []string // up to summaryTitles, in id order
}

// summaryTitles is how many titles a Summary samples.
const summaryTitles = 20

// summarizer is a Backend that counts its contents without listing them.
type summarizer interface {
	// summary is Library.Summary; ok false means it cannot tell cheaply.
	summary() (s Summary, ok bool, err error)
}

// Summary counts the library's contents and samples its titles: from the
// backend's running totals when it keeps them, else by listing every
// document.
func (l *Library) Summary(ctx context.Context) (Summary, error) {
	if sb, ok := l.be.(summarizer); ok {
		if s, ok, err := sb.summary(); err != nil || ok {
			return s, err
		}
	}
	docs, err := l.be.Documents()
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Documents: len(docs)}
	for _, d := range docs {
		s.Chunks += len(d.Chunks)
		s.Pages += d.Pages
		if len(s.Titles) < summaryTitles {
			s.Titles = append(s.Titles, d.Title)
		}
	}
	return s, nil
}
