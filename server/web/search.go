package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/library"
)

type hit struct {
	Rank                        int
	Score                       float64
	Retriever                   string
	Reranked                    bool    // the rerank stage scored it
	FirstRank                   int     // its rank in the first stage, when Reranked
	RerankScore                 float64 // the reranker's score, when Reranked
	ID, Title, URL, Text, DocID string
	Snippet                     []library.Span // Text with the query's words marked
	Page                        int
}

// maxSearchPage is the deepest result page asked for; the library's MaxK
// ends paging sooner.
const maxSearchPage = 100

type searchData struct {
	Q, Mode          string
	Filters          filters  // the controls beside the query
	Types            []string // the type control's choices
	Full             string   // Q with the controls' operators, what was searched
	Notes            []string // operators that matched nothing
	Modes            []string
	Hits             []hit
	Error            string
	Ran              bool
	Page, From, To   int    // the page of results shown (from 1), and its ranks From-To
	PrevURL, NextURL string // the pages before and after it, "" when none
	Reranker         string // the rerank stage's reranker, "" when off
}

func (h *Handler) searchPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := searchData{Q: q.Get("q"), Mode: q.Get("mode"), Modes: []string{"hybrid", "lexical", "vector"},
		Filters: readFilters(q), Types: filterTypes}
	d.Full = d.Filters.compose(d.Q)
	mode, err := library.ParseMode(d.Mode)
	if err != nil || mode == "" {
		mode = h.opts.Library.Mode()
	}
	d.Mode = string(mode)
	d.Reranker, _ = h.opts.Library.Current().RerankOn()
	d.Page, _ = strconv.Atoi(q.Get("page"))
	d.Page = min(max(d.Page, 1), maxSearchPage)
	status := http.StatusOK
	if d.Full != "" {
		d.Ran = true
		var more bool
		if d.Hits, d.Notes, more, err = h.search(r, d.Full, mode, d.Page); err != nil {
			d.Error, status = searchError(err), http.StatusBadRequest
			if d.Error == "" {
				h.log.Error("web: search", "err", err)
				d.Error, status = "The library failed to search; see the server log.", http.StatusInternalServerError
			}
		}
		d.link(more)
		h.told(r, "search", d.Full, len(d.Hits), err)
	}
	h.render(w, r, status, "search", "Search", d)
}

// told reports a read to Options.Read, when set and the read succeeded.
func (h *Handler) told(r *http.Request, action, target string, results int, err error) {
	if h.opts.Read != nil && err == nil {
		h.opts.Read(r.Context(), action, target, results)
	}
}

// link numbers the page's results and links the pages before and after it
// (more: results follow this page) with the same query and mode.
func (d *searchData) link(more bool) {
	if len(d.Hits) > 0 {
		d.From, d.To = d.Hits[0].Rank, d.Hits[len(d.Hits)-1].Rank
	}
	page := func(n int) string {
		return "search?" + d.Filters.values(url.Values{"q": {d.Q}, "mode": {d.Mode}, "page": {strconv.Itoa(n)}}).Encode()
	}
	switch {
	case d.Page > 1 && len(d.Hits) == 0: // past the end: back to the start
		d.PrevURL = page(1)
	case d.Page > 1:
		d.PrevURL = page(d.Page - 1)
	}
	if more {
		d.NextURL = page(d.Page + 1)
	}
}

// search runs the MCP search tool's query path with its options for the
// results of page n (Options.MaxResults a page; the library's MaxK bounds
// how deep paging goes), shapes them as the tool does (server link when the
// document has no URL) and marks the query's words in each snippet. more
// reports that results follow page n; notes are the library's on
// operators that matched nothing.
func (h *Handler) search(r *http.Request, q string, mode library.Mode, n int) (hits []hit, notes []string, more bool, err error) {
	per := h.opts.MaxResults
	lo := (n - 1) * per
	resp, err := h.opts.Library.SearchWith(r.Context(), q, library.SearchOptions{K: lo + per + 1, MaxQueryLen: h.opts.MaxQueryLen, Mode: mode, Debug: true})
	if err != nil {
		return nil, nil, false, err
	}
	res := resp.Results
	more = len(res) > lo+per
	res = res[min(lo, len(res)):min(lo+per, len(res))]
	out := make([]hit, 0, len(res))
	mark := func(text string) []library.Span { return library.Highlight(text, q) }
	if resp.Terms != nil { // a long query: mark the terms it was searched by
		mark = func(text string) []library.Span { return library.HighlightTerms(text, resp.Terms) }
	}
	for i, res := range res {
		if res.URL == "" {
			res.URL = h.opts.Link(r, res.DocID, res.Page, res.Anchor)
		}
		out = append(out, hit{Rank: lo + i + 1, Score: res.Score, Retriever: res.Retriever, ID: res.ID, Title: res.Title,
			URL: res.URL, Text: res.Text, Snippet: mark(res.Text), DocID: res.DocID, Page: res.Page,
			Reranked: res.Reranked, FirstRank: res.FirstRank, RerankScore: res.RerankScore})
	}
	return out, resp.Notes, more, nil
}

// searchError returns a message for a query the user should fix, else "".
func searchError(err error) string {
	switch {
	case errors.Is(err, library.ErrEmptyQuery):
		return "The query has no searchable words."
	case errors.Is(err, library.ErrQueryTooLong):
		return "The query is too long."
	case strings.Contains(err.Error(), "vector search is unavailable"):
		return err.Error()
	}
	return ""
}
