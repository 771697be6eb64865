package main

import (
	"context"
	"fmt"

	"github.com/mcpvec/mcpvec/library"
)

func runFetch(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("fetch", "[flags] ID", e)
	asJSON := fs.Bool("json", false, "print the MCP fetch tool's JSON object")
	maxChars := fs.Int("max-chars", 0, "cut the text at `N` characters; the cut names the id that reads on (default: the whole text)")
	pos, err := parseArgs(fs, args, e, one)
	if err != nil {
		return err
	}
	return withLibrary(ctx, e, lf, append([]string{"fetch"}, args...), false, needDocs, func(h *handle) error {
		fo := library.FetchOptions{MaxChars: -1}
		if *maxChars > 0 {
			fo.MaxChars = *maxChars
		}
		resp, err := h.lib.Fetch(ctx, pos[0], fo)
		if err != nil {
			return err
		}
		if resp.URL == "" {
			resp.URL = library.FileURL(resp.Source, resp.Page)
		}
		if *asJSON {
			return writeJSON(e.stdout, resp)
		}
		fmt.Fprintf(e.stdout, "%s  [%s]\n", termSafe(resp.Title, false), resp.ID)
		if resp.URL != "" {
			fmt.Fprintln(e.stdout, termSafe(resp.URL, false))
		}
		fmt.Fprintf(e.stdout, "\n%s\n", termSafe(resp.Text, true))
		if next, _ := resp.Metadata["next_id"].(string); next != "" {
			fmt.Fprintf(e.stderr, "(text cut; `mcpvec fetch %s` reads on)\n", next)
		}
		return nil
	})
}
