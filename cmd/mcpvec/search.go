package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvec/mcpvec/library"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("search", "[flags] QUERY", e)
	k := fs.Int("k", 10, "number of results")
	asJSON := fs.Bool("json", false, "print the MCP search tool's JSON object")
	mode := fs.String("mode", "", "retrieval: hybrid, lexical or vector (default: lexical for the offline embedder, else hybrid)")
	rf := registerRerank(fs, e)
	pos, err := parseFlags(fs, args, e)
	if err != nil {
		return err
	}
	ro, err := rf.options(e)
	if err != nil {
		return err
	}
	query := strings.Join(pos, " ")
	m, err := library.ParseMode(*mode)
	if err != nil {
		return err
	}
	return withLibrary(ctx, e, lf, append([]string{"search"}, args...), false, needSearch, func(h *handle) error {
		resp, err := reranked(h.lib, ro).Search(ctx, query, library.SearchOptions{K: *k, Mode: m})
		if err != nil {
			return err
		}
		for i, r := range resp.Results {
			if r.URL == "" { // the user is on the machine that holds the file
				resp.Results[i].URL = library.FileURL(r.Source, r.Page)
			}
		}
		for _, n := range resp.Notes { // an operator that matched nothing
			fmt.Fprintf(e.stderr, "note: %s\n", termSafe(n, false))
		}
		if *asJSON {
			return writeJSON(e.stdout, resp)
		}
		printResults(e, resp.Results)
		return nil
	})
}

// printResults prints search results, or "no results" on stderr. A
// result the rerank stage scored ends its first line with "(reranked, was
// N)", N its rank in the first stage.
func printResults(e *env, results []library.SearchResult) {
	if len(results) == 0 {
		fmt.Fprintln(e.stderr, "no results")
		return
	}
	for i, r := range results {
		mark := ""
		if r.Reranked { // both ranks, compactly; the default line is unchanged
			mark = fmt.Sprintf("  (reranked, was %d)", r.FirstRank)
		}
		fmt.Fprintf(e.stdout, "%d. %s  [%s]%s\n", i+1, termSafe(r.Title, false), r.ID, mark)
		if r.URL != "" {
			fmt.Fprintf(e.stdout, "   %s\n", termSafe(r.URL, false))
		}
		fmt.Fprintf(e.stdout, "   %s\n\n", termSafe(indent(r.Text), true))
	}
}

func indent(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "\n", "\n   ")
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
