package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/mcpvec/mcpvec/server/library"
)

type hit struct {
	Rank                        int
	Score                       float64
	Retriever                   string
	ID, Title, URL, Text, DocID string
	Page                        int
}

type searchData struct {
	Q, Mode string
	Modes   []string
	Hits    []hit
	Error   string
	Ran     bool
}

func (h *Handler) searchPage(w http.ResponseWriter, r *http.Request) {
	d := searchData{Q: r.URL.Query().Get("q"), Mode: r.URL.Query().Get("mode"), Modes: []string{"hybrid", "lexical", "vector"}}
	mode, err := library.ParseMode(d.Mode)
	if err != nil || mode == "" {
		mode = h.opts.Library.Mode()
	}
	d.Mode = string(mode)
	status := http.StatusOK
	if strings.TrimSpace(d.Q) != "" {
		d.Ran = true
		if d.Hits, err = h.search(r, d.Q, mode); err != nil {
			d.Error, status = searchError(err), http.StatusBadRequest
			if d.Error == "" {
				h.log.Error("web: search", "err", err)
				d.Error, status = "The library failed to search; see the server log.", http.StatusInternalServerError
			}
		}
	}
	h.render(w, r, status, "search", "Search", d)
}

// search runs the MCP search tool's query path with its options and shapes
// results as the tool does (server link when the document has no URL).
func (h *Handler) search(r *http.Request, q string, mode library.Mode) ([]hit, error) {
	resp, err := h.opts.Library.SearchWith(r.Context(), q, library.SearchOptions{K: h.opts.MaxResults, MaxQueryLen: h.opts.MaxQueryLen, Mode: mode, Debug: true})
	if err != nil {
		return nil, err
	}
	out := make([]hit, 0, len(resp.Results))
	for i, res := range resp.Results {
		if i == h.opts.MaxResults {
			break
		}
		if res.URL == "" {
			res.URL = h.opts.Link(r, res.DocID, res.Page, res.Anchor)
		}
		out = append(out, hit{Rank: i + 1, Score: res.Score, Retriever: res.Retriever, ID: res.ID, Title: res.Title,
			URL: res.URL, Text: res.Text, DocID: res.DocID, Page: res.Page})
	}
	return out, nil
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
