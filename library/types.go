package library

// SearchResponse is the object the MCP `search` tool returns and
// `mcpvec search --json` prints. Results is never nil.
type SearchResponse struct {
	Results []SearchResult `json:"results"`
	// Notes say which of the query's operators matched nothing (in:,
	// path:, type:, after:, before:, phrases, exclusions); nil otherwise.
	Notes []string `json:"notes,omitempty"`
	// Terms are the index terms a long query was searched by
	// (LongQueryOptions), which its snippets mark (HighlightTerms); nil
	// for a query searched by all its terms. Not on the wire.
	Terms []string `json:"-"`
}

// SearchResult is one passage. Title names the document, the passage's
// section when the document has headings, and the page
// ("manual.pdf — 4.2 Memcheck options — p. 42"); URL is an http(s) link to cite or "" when none is
// known; Text is a snippet of the passage around the best-matching sentence.
type SearchResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
	Text  string `json:"text"`

	// DocID and Page let the server link to its own copy when URL is "":
	// Page is set for PDFs, which open at it; Anchor for other documents, the
	// fragment of the document's View where the passage lies.
	DocID  string `json:"-"`
	Page   int    `json:"-"`
	Anchor string `json:"-"`
	// Source is the document's source path, for a local reader's link
	// (FileURL) when URL is ""; not on the wire.
	Source string `json:"-"`
	// Score is the fused ranking score (higher is better); not on the wire.
	Score float64 `json:"-"`
	// Retriever is "lexical", "vector", "both" or "fused" (a backend that
	// fuses itself) when SearchOptions.Debug is set, else ""; not on the wire.
	Retriever string `json:"-"`
	// Reranked is set on a result the rerank stage scored: RerankScore is
	// the reranker's score and FirstRank its 1-based place in the first
	// stage's candidate list (before near-duplicates were dropped). Not
	// on the wire: the MCP result stays {id, title, url, text}.
	Reranked    bool    `json:"-"`
	FirstRank   int     `json:"-"`
	RerankScore float64 `json:"-"`

	seq uint64
}

// FetchResponse is the object the MCP `fetch` tool returns and
// `mcpvec fetch --json` prints. Metadata always holds document_id, source,
// and for PDFs page_start and page_end; for passages chunk_index; when the
// text was cut, truncated=true.
type FetchResponse struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	URL      string         `json:"url"`
	Metadata map[string]any `json:"metadata"`

	// DocID, Page and Anchor let the server link to its own copy when URL
	// is "", as in SearchResult.
	DocID  string `json:"-"`
	Page   int    `json:"-"`
	Anchor string `json:"-"`
	Source string `json:"-"` // as in SearchResult
}
