package main

import (
	"context"
	"fmt"

	"github.com/mcpvec/mcpvec/library"
)

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
