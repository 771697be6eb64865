package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/library"
)

const searchOutputSchema = `{
  "type": "object",
  "properties": {
    "results": {
      "type": "array",
      "description": "Matching passages, best first; empty when nothing matches.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Passage id; pass it to fetch for the full text."},
          "title": {"type": "string", "description": "Document name and page."},
          "url": {"type": "string", "description": "Link to cite (opens the document at the page), or empty when none is known."},
          "text": {"type": "string", "description": "Snippet of the passage around the best match."}
        },
        "required": ["id", "title", "url", "text"]
      }
    },
    "notes": {
      "type": "array",
      "description": "Present when an operator of the query matched nothing: which one.",
      "items": {"type": "string"}
    }
  },
  "required": ["results"]
}`

const fetchOutputSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "description": "The id that was fetched."},
    "title": {"type": "string", "description": "Document name and page."},
    "text": {"type": "string", "description": "Full text of the passage (cut when very long; see metadata.truncated and metadata.next_id)."},
    "url": {"type": "string", "description": "Link to cite, or empty when none is known."},
    "metadata": {
      "type": "object",
      "description": "document_id, source, page_start/page_end for PDFs, chunk_index, truncated when the text was cut, and then next_id, the id to fetch for the rest.",
      "additionalProperties": true
    }
  },
  "required": ["id", "title", "text", "url", "metadata"]
}`

// operatorHelp teaches the query operators (library/query) in two lines.
const operatorHelp = `Narrow with operators in the query: in:NAME (document title or file name, * globs; in:"two words"), path:FOLDER/, type:pdf|docx|md, after:2024-03 / before:2024-03-15 (file date), "exact phrase".
Exclude with -word, -"phrase", -in:NAME, -path:FOLDER/, -type:pdf; operators alone list matching passages, and notes say when one matches nothing.`

// errLibrary is what a client sees when the library fails; the cause (which
// may name local paths) goes to the log only.
var errLibrary = errors.New("library error (details in the server log)")

func readOnly() mcp.ToolAnnotation {
	t, f := true, false
	return mcp.ToolAnnotation{ReadOnlyHint: &t, DestructiveHint: &f, IdempotentHint: &t, OpenWorldHint: &f}
}

// addTools registers exactly the two deep-research tools.
func (s *Server) addTools(sum library.Summary) {
	about := libraryBlurb(sum)
	search := mcp.NewTool("search",
		mcp.WithDescription("Search the local document library ("+about+") for passages relevant to a query. "+
			"Use natural-language questions or key words; returns up to "+fmt.Sprint(s.opts.MaxResults)+
			" passages with id, title, url and a text snippet. Call fetch with an id to read the whole passage. "+
			"Cite results by their url.\n"+operatorHelp),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(s.opts.MaxQueryLen),
			mcp.Description("What to look for: a question or a few key words, optionally with operators.")),
		mcp.WithRawOutputSchema(json.RawMessage(searchOutputSchema)),
		mcp.WithToolAnnotation(withTitle(readOnly(), "Search the library")),
	)
	fetch := mcp.NewTool("fetch",
		mcp.WithDescription("Fetch the full text of one passage of the local document library by the id a search result returned, "+
			"with its title, a url to cite and metadata (document, pages). "+
			"A long text is cut: metadata.truncated is true and metadata.next_id is the id to fetch to read on."),
		mcp.WithString("id", mcp.Required(), mcp.MinLength(1),
			mcp.Description("A result id from search, or a metadata.next_id from fetch.")),
		mcp.WithRawOutputSchema(json.RawMessage(fetchOutputSchema)),
		mcp.WithToolAnnotation(withTitle(readOnly(), "Fetch a passage")),
	)
	s.addTool(search, s.observe("search", "query", s.handleSearch))
	s.addTool(fetch, s.observe("fetch", "id", s.handleFetch))
}

func withTitle(a mcp.ToolAnnotation, title string) mcp.ToolAnnotation {
	a.Title = title
	return a
}

// handleSearch answers the search tool. Mistakes the model can fix come back
// as a result with isError; library failures are Go errors (logged).
func (s *Server) handleSearch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, int, error) {
	query, bad := stringArg(req, "query")
	if bad != nil {
		return bad, 0, nil
	}
	resp, err := s.lib.Search(ctx, query, library.SearchOptions{K: s.opts.MaxResults, MaxQueryLen: s.opts.MaxQueryLen})
	var long *library.QueryTooLongError
	switch {
	case errors.Is(err, library.ErrEmptyQuery):
		return mcp.NewToolResultError("The query is empty. Pass a question or a few key words in \"query\"."), 0, nil
	case errors.As(err, &long):
		return mcp.NewToolResultError(fmt.Sprintf("The query is too long (%d characters, at most %d). Shorten it to the key words.", long.Len, long.Max)), 0, nil
	case errors.Is(err, library.ErrQueryTooLong):
		return mcp.NewToolResultError("The query is too long. Shorten it to the key words."), 0, nil
	case err != nil:
		s.log.Error("search", "err", err)
		return nil, 0, fmt.Errorf("search: %w", errLibrary)
	}
	out := library.SearchResponse{Results: []library.SearchResult{}}
	if resp != nil {
		out.Notes = resp.Notes
	}
	if resp != nil && resp.Results != nil {
		// The response is this call's own: its results are linked in place.
		out.Results = resp.Results[:min(len(resp.Results), s.opts.MaxResults)]
		for i, r := range out.Results {
			if r.URL == "" {
				out.Results[i].URL = s.docURL(ctx, r.DocID, r.Page, r.Anchor, r.Source)
			}
		}
	}
	res, err := structured(ctx, out)
	return res, len(out.Results), err
}

// handleFetch answers the fetch tool; an unknown id is a result with isError.
func (s *Server) handleFetch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, int, error) {
	id, bad := stringArg(req, "id")
	if bad != nil {
		return bad, 0, nil
	}
	if id = strings.TrimSpace(id); id == "" {
		return mcp.NewToolResultError("The id is empty. Pass an id returned by search."), 0, nil
	}
	resp, err := s.lib.Fetch(ctx, id, library.FetchOptions{MaxChars: s.opts.MaxFetchChars})
	switch {
	case errors.Is(err, library.ErrNotFound) || (err == nil && resp == nil):
		return mcp.NewToolResultError(fmt.Sprintf("Unknown id %q. Use an id returned by search (the library may have changed; search again).", id)), 0, nil
	case err != nil:
		s.log.Error("fetch", "id", id, "err", err)
		return nil, 0, fmt.Errorf("fetch %q: %w", id, errLibrary)
	}
	out := *resp
	out.Metadata = make(map[string]any, len(resp.Metadata)+1)
	maps.Copy(out.Metadata, resp.Metadata)
	if src, ok := out.Metadata["source"].(string); ok && !s.opts.ShowPaths && filepath.IsAbs(src) {
		// Where the owner keeps files is not the remote client's business.
		out.Metadata["source"] = filepath.Base(src)
	}
	if out.URL == "" {
		out.URL = s.docURL(ctx, resp.DocID, resp.Page, resp.Anchor, resp.Source)
	}
	res, err := structured(ctx, out)
	return res, 1, err
}

// stringArg returns the string argument name ("" when absent), or a tool
// error result telling the model what is wrong with the arguments.
func stringArg(req mcp.CallToolRequest, name string) (string, *mcp.CallToolResult) {
	if req.Params.Arguments == nil {
		return "", nil
	}
	args, ok := req.Params.Arguments.(map[string]any)
	if !ok {
		return "", mcp.NewToolResultError(fmt.Sprintf("The arguments must be a JSON object such as {%q: \"...\"}.", name))
	}
	switch v := args[name].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", mcp.NewToolResultError(fmt.Sprintf("%q must be a string, not %s.", name, jsonType(v)))
	}
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64, json.Number, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// structured returns v as structuredContent and the same JSON as one text
// item; on a streamable HTTP request or a line transport, as placeholders
// the response's writer fills in (see splice and streamSplicer).
func structured(ctx context.Context, v any) (*mcp.CallToolResult, error) {
	b, err := encodeResult(v)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	if sp := spliceFrom(ctx); sp != nil {
		return sp.result(b), nil // b is the splice's now
	}
	if ss := streamSplicerFrom(ctx); ss != nil {
		if res := ss.result(b); res != nil {
			return res, nil // b is the splicer's now
		}
	}
	// v itself, not b as a json.RawMessage, which encoding/json would check
	// and compact byte by byte: the same bytes, with no copy of b kept.
	res := mcp.NewToolResultStructured(v, string(b))
	putBuf(b)
	return res, nil
}

// docURL is the signed absolute link to cite: a PDF's original file at
// page, else the document's text view at anchor (the original itself when
// neither is set). Over stdio, where no server links exist, it is the
// file:// URL of the source file when ShowPaths lets paths out, else "";
// it is "" for an unknown docID.
func (s *Server) docURL(ctx context.Context, docID string, page int, anchor, source string) string {
	base, _ := ctx.Value(baseKey{}).(string)
	if base == "" && s.opts.ShowPaths {
		// Over stdio the client runs where the files are, and the owner
		// lets paths out: the file itself is the link.
		return library.FileURL(source, page)
	}
	if base == "" || docID == "" {
		return ""
	}
	return s.citeLink(base, docID, page, anchor)
}

// citeLink is base followed by the signed path of a citation: the original
// at page when page > 0 (a PDF), else the text view at anchor when anchor
// is set, else the original.
func (s *Server) citeLink(base, docID string, page int, anchor string) string {
	if page <= 0 && anchor != "" {
		return s.viewLink(base, docID, anchor)
	}
	return s.docLink(base, docID, page)
}
