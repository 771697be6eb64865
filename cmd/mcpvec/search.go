package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvec/mcpvec/server/library"
)

func runSearch(ctx context.Context, e *env, args []string) int {
	fs, lf := libFlagSet("search", "[flags] QUERY", e)
	k := fs.Int("k", 10, "number of results")
	asJSON := fs.Bool("json", false, "print the MCP search tool's JSON object")
	mode := fs.String("mode", "", "retrieval: hybrid, lexical or vector (default: lexical for the offline embedder, else hybrid)")
	pos, st, ok := parseFlags(fs, args, e)
	if !ok {
		return st
	}
	query := strings.Join(pos, " ")
	m, err := library.ParseMode(*mode)
	if err != nil {
		return errorf(e, "%v", err)
	}
	h, st := openOrForward(ctx, e, lf, "search", args, false, needSearch)
	if h == nil {
		return st
	}
	defer h.close()
	resp, err := h.lib.Search(ctx, query, library.SearchOptions{K: *k, Mode: m})
	if err != nil {
		return errorf(e, "%v", err)
	}
	for i, r := range resp.Results {
		if r.URL == "" { // the user is on the machine that holds the file
			resp.Results[i].URL = library.FileURL(r.Source, r.Page)
		}
	}
	if *asJSON {
		return printJSON(e, resp)
	}
	if len(resp.Results) == 0 {
		fmt.Fprintln(e.stderr, "no results")
		return 0
	}
	for i, r := range resp.Results {
		fmt.Fprintf(e.stdout, "%d. %s  [%s]\n", i+1, termSafe(r.Title, false), r.ID)
		if r.URL != "" {
			fmt.Fprintf(e.stdout, "   %s\n", termSafe(r.URL, false))
		}
		fmt.Fprintf(e.stdout, "   %s\n\n", termSafe(indent(r.Text), true))
	}
	return 0
}

func indent(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "\n", "\n   ")
}

func printJSON(e *env, v any) int {
	if err := writeJSON(e.stdout, v); err != nil {
		return errorf(e, "%v", err)
	}
	return 0
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func runFetch(ctx context.Context, e *env, args []string) int {
	fs, lf := libFlagSet("fetch", "[flags] ID", e)
	asJSON := fs.Bool("json", false, "print the MCP fetch tool's JSON object")
	maxChars := fs.Int("max-chars", 0, "cut the text at `N` characters; the cut names the id that reads on (default: the whole text)")
	pos, st, ok := parseArgs(fs, args, e, one)
	if !ok {
		return st
	}
	h, st := openOrForward(ctx, e, lf, "fetch", args, false, needDocs)
	if h == nil {
		return st
	}
	defer h.close()
	fo := library.FetchOptions{MaxChars: -1}
	if *maxChars > 0 {
		fo.MaxChars = *maxChars
	}
	resp, err := h.lib.Fetch(ctx, pos[0], fo)
	if err != nil {
		return errorf(e, "%v", err)
	}
	if resp.URL == "" {
		resp.URL = library.FileURL(resp.Source, resp.Page)
	}
	if *asJSON {
		return printJSON(e, resp)
	}
	fmt.Fprintf(e.stdout, "%s  [%s]\n", termSafe(resp.Title, false), resp.ID)
	if resp.URL != "" {
		fmt.Fprintln(e.stdout, termSafe(resp.URL, false))
	}
	fmt.Fprintf(e.stdout, "\n%s\n", termSafe(resp.Text, true))
	if next, _ := resp.Metadata["next_id"].(string); next != "" {
		fmt.Fprintf(e.stderr, "(text cut; `mcpvec fetch %s` reads on)\n", next)
	}
	return 0
}
