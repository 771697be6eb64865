package library

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpvec/mcpvec/store"
)

// FetchOptions overrides the library's defaults for one fetch.
type FetchOptions struct {
	// MaxChars caps the text in characters (0: Options.MaxFetchChars;
	// negative: no cap, the whole text).
	MaxChars int
}

// Fetch returns a passage with the pages it lies on (or its neighbouring
// passages for documents without pages), or a whole document, capped at
// fo.MaxChars: it is the one place fetched text is cut. A cut text has
// metadata.truncated set and metadata.next_id, the id of the rest: the id
// "<id>@<n>" (see PartID) is the text of <id> from its n-th character on,
// so a reader can follow next_id until the whole text is read. An unknown
// id, or a part that starts past the end of the text, returns ErrNotFound.
func (l *Library) Fetch(ctx context.Context, id string, fo FetchOptions) (*FetchResponse, error) {
	limit := cmp.Or(fo.MaxChars, l.opts.MaxFetchChars)
	id = strings.TrimSpace(id)
	base, from, _ := splitPartID(id)
	if base == "" {
		return nil, fmt.Errorf("%w: empty id", ErrNotFound)
	}
	var resp *FetchResponse
	var err error
	if docID, idx, ok := store.ParsePassageID(base); ok {
		resp, err = l.fetchPassage(ctx, docID, idx)
	} else {
		resp, err = l.fetchDocument(ctx, base)
	}
	if err != nil {
		return nil, err
	}
	if err := resp.window(id, base, from, limit); err != nil {
		return nil, err
	}
	return resp, nil
}

func (l *Library) fetchDocument(ctx context.Context, id string) (*FetchResponse, error) {
	d, err := l.document(ctx, id, true)
	if err != nil {
		return nil, err
	}
	md := docMetadata(d)
	md["chunks"] = len(d.Chunks)
	page, anchor := 0, ""
	if isPaged(d) {
		md["page_start"], md["page_end"] = 1, max(d.Pages, 1)
		page = 1
	} else {
		anchor = kindOf(d.MediaType).anchorOf(1)
	}
	return &FetchResponse{ID: d.ID, Title: d.Title, Text: d.Text, URL: sourceURL(d, 0),
		Metadata: md, DocID: d.ID, Page: page, Anchor: anchor, Source: d.SourcePath}, nil
}

func (l *Library) fetchPassage(ctx context.Context, docID string, idx int) (*FetchResponse, error) {
	d, err := l.be.Document(ctx, docID, true)
	if errors.Is(err, store.ErrNotFound) || (err == nil && idx >= len(d.Chunks)) {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, fmt.Sprintf("%s:%d", docID, idx))
	}
	if err != nil {
		return nil, err
	}
	cs, err := l.be.Chunks(ctx, []uint64{d.Chunks[idx]})
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
		if nb, err := l.be.Chunks(ctx, neighbours(d, idx)); err == nil {
			for _, n := range nb {
				lo, hi = min(lo, n.Start), max(hi, n.End)
			}
		}
		text = d.Text[max(lo, 0):min(hi, len(d.Text))]
	}
	md := docMetadata(d)
	md["chunk_index"] = idx
	md["passage"] = c.Text
	if isPaged(d) {
		md["page_start"], md["page_end"] = c.PageStart, c.PageEnd
	}
	return &FetchResponse{ID: c.ID(), Title: passageTitle(d, c.Headings, c.PageStart, c.PageEnd),
		Text: strings.TrimSpace(text), URL: sourceURL(d, page), Metadata: md, DocID: d.ID, Page: page, Anchor: anchor,
		Source: d.SourcePath}, nil
}

// PartID is the id of the part of id's text from its from-th character on
// (0-based, in characters): "<id>@<from>". Fetch answers it.
func PartID(id string, from int) string { return id + "@" + strconv.Itoa(from) }

// splitPartID splits a PartID into the id and the first character; ok is
// false (and id is returned whole, from 0) for an id without a part. No
// document or passage id holds "@".
func splitPartID(id string) (base string, from int, ok bool) {
	i := strings.LastIndexByte(id, '@')
	if i < 0 || i == len(id)-1 || strings.Trim(id[i+1:], "0123456789") != "" {
		return id, 0, false
	}
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return id, 0, false
	}
	return id[:i], n, true
}

// window cuts r.Text to the part asked for: from its from-th character on,
// at most limit characters (negative: no cap). id is the id asked for and
// base the document or passage it names. A cut part names the rest in
// metadata.next_id; parts read in turn, each without its ellipsis, are the
// whole text exactly.
func (r *FetchResponse) window(id, base string, from, limit int) error {
	text := r.Text
	if id != base {
		off, ok := runeOffset(text, from)
		if !ok {
			return fmt.Errorf("%w: %q (the text is %d characters long)", ErrNotFound, id, utf8.RuneCountInString(text))
		}
		text = text[off:]
		r.ID = id
		r.Metadata["offset"] = from
	}
	end, cut := len(text), false
	if limit >= 0 {
		end, cut = cutEnd(text, limit)
	}
	if cut && end == 0 {
		// Whitespace the cut would drop: step over it so reading on moves.
		end = len(cutRunes(text, max(limit-1, 1)))
	}
	r.Metadata["truncated"] = cut
	r.Text = text[:end]
	if cut {
		r.Text += "…"
		r.Metadata["next_id"] = PartID(base, from+utf8.RuneCountInString(text[:end]))
	}
	return nil
}

// runeOffset is the byte offset of text's n-th character; ok is false
// when text has no n-th character (a part past its end).
func runeOffset(text string, n int) (int, bool) {
	i := 0
	for off := range text {
		if i == n {
			return off, true
		}
		i++
	}
	return 0, false
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

func docMetadata(d *store.Document) map[string]any {
	md := map[string]any{
		"document_id": d.ID,
		"source":      d.SourcePath,
		"media_type":  d.MediaType,
	}
	if d.SourceURL != "" {
		md["source_url"] = d.SourceURL
	}
	if d.Pages > 0 {
		md["pages"] = d.Pages
	}
	if !d.Created.IsZero() {
		md["created"] = d.Created.UTC().Format(time.RFC3339)
	}
	return md
}

// CutText cuts text to at most max characters, preferring a word boundary
// near the end and ending with an ellipsis, and reports whether it cut. It is
// the one cut of text for readers (fetch, and the server's instructions).
func CutText(text string, max int) (string, bool) {
	end, cut := cutEnd(text, max)
	if !cut {
		return text, false
	}
	if max < 1 {
		return "", true
	}
	return text[:end] + "…", true
}

// cutEnd is where CutText cuts text for at most max characters with the
// ellipsis: the byte offset of the end of what it keeps.
func cutEnd(text string, max int) (end int, cut bool) {
	if utf8.RuneCountInString(text) <= max {
		return len(text), false
	}
	if max < 1 {
		return 0, true
	}
	t := cutRunes(text, max-1) // leave room for the ellipsis
	if sp := strings.LastIndexAny(t, " \n\t"); sp > len(t)*9/10 {
		t = t[:sp]
	}
	return len(strings.TrimRight(t, " \n\t")), true
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
	d, err := l.document(ctx, docID, false)
	if err != nil {
		return nil, err
	}
	r, size, mod, err := l.be.Original(ctx, docID)
	if errors.Is(err, store.ErrNotFound) {
		text := mustText(ctx, l.be, docID)
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

func mustText(ctx context.Context, be Backend, id string) string {
	d, err := be.Document(ctx, id, true)
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
	Titles    []string // up to SummaryTitles, in id order
}

// SummaryTitles is how many titles a Summary samples.
const SummaryTitles = 20

// Summary counts the library's contents and samples its titles: from the
// backend's running totals when it keeps them, else by listing every
// document.
func (l *Library) Summary(ctx context.Context) (Summary, error) {
	if l.caps.summary != nil {
		if s, ok, err := l.caps.summary.Summary(ctx); err != nil || ok {
			return s, err
		}
	}
	docs, err := l.be.Documents(ctx)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Documents: len(docs)}
	for _, d := range docs {
		s.Chunks += len(d.Chunks)
		s.Pages += d.Pages
		if len(s.Titles) < SummaryTitles {
			s.Titles = append(s.Titles, d.Title)
		}
	}
	return s, nil
}
