package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpvec/mcpvec/library"
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
