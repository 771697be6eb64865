package main

import (
	"bufio"
	"context"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/store"
)

// docJSON is one document in `ls --json`.
type docJSON struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Source     string    `json:"source"`
	SourceURL  string    `json:"source_url,omitempty"`
	MediaType  string    `json:"media_type"`
	Pages      int       `json:"pages"`
	Passages   int       `json:"passages"`
	Size       int64     `json:"size"`
	SHA256     string    `json:"sha256"`
	IngestedAt time.Time `json:"ingested_at"`
}

func runLs(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("ls", "[flags] [PATH...]", e)
	asJSON := fs.Bool("json", false, "print JSON")
	roots := fs.Bool("roots", false, "list the folders `mcpvec sync` keeps current instead")
	paths, err := parseFlags(fs, args, e)
	if err != nil {
		return err
	}
	return withLibrary(ctx, e, lf, append([]string{"ls"}, args...), false, needStore, func(h *handle) error {
		if *roots {
			return printRoots(e, h, *asJSON)
		}
		return listDocs(ctx, e, h, paths, *asJSON)
	})
}

// listDocs prints the library's documents, or those under paths with
// notes on the paths.
func listDocs(ctx context.Context, e *env, h *handle, paths []string, asJSON bool) error {
	docs, err := h.docs.Documents(ctx)
	if err != nil {
		return err
	}
	var pr *pathReport
	if len(paths) > 0 {
		if pr, err = lsPaths(ctx, e, docs, func(id string) (*store.Document, error) { return h.docs.DocumentInfo(ctx, id) }, paths); err != nil {
			return err
		}
		docs = pr.docs
		if s, ok := h.docs.(isync.Settings); ok {
			pr.unreadable, _ = isync.Remembered(s) // a note only: ls does not fail on it
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].SourcePath < docs[j].SourcePath })
	out := []docJSON{}
	for _, d := range docs {
		out = append(out, docJSON{ID: d.ID, Title: d.Title, Source: d.SourcePath, SourceURL: d.SourceURL,
			MediaType: d.MediaType, Pages: d.Pages, Passages: len(d.Chunks), Size: d.Size, SHA256: d.SHA256,
			IngestedAt: d.IngestedAt})
	}
	if asJSON {
		v := map[string]any{"documents": out}
		if pr != nil {
			v["duplicates"], v["missing"] = append([]duplicateJSON{}, pr.duplicates...), append([]string{}, pr.missing...)
		}
		return writeJSON(e.stdout, v)
	}
	if err := printDocs(e, out); err != nil {
		return err
	}
	if pr != nil {
		printPathNotes(e, pr)
	}
	return nil
}

// printDocs prints the documents as a table.
func printDocs(e *env, out []docJSON) error {
	// tabwriter writes each cell and its padding on its own: unbuffered,
	// listing 250,000 documents made 3.6 s of write calls.
	bw := bufio.NewWriterSize(e.stdout, 64<<10)
	tw := tabwriter.NewWriter(bw, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPAGES\tPASSAGES\tTITLE\tSOURCE")
	for _, d := range out {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", d.ID, d.Pages, d.Passages, termSafe(d.Title, false), termSafe(d.Source, false))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return bw.Flush()
}
