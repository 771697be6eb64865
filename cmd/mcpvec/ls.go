package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"syscall"
	"text/tabwriter"
	"time"

	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/server/library"
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

func runLs(ctx context.Context, e *env, args []string) int {
	fs, lf := libFlagSet("ls", "[flags] [PATH...]", e)
	asJSON := fs.Bool("json", false, "print JSON")
	roots := fs.Bool("roots", false, "list the folders `mcpvec sync` keeps current instead")
	paths, st, ok := parseFlags(fs, args, e)
	if !ok {
		return st
	}
	h, st := openOrForward(ctx, e, lf, "ls", args, false, needStore)
	if h == nil {
		return st
	}
	defer h.close()
	if *roots {
		return printRoots(e, h, *asJSON)
	}
	docs, err := h.docs.Documents()
	if err != nil {
		return errorf(e, "%v", err)
	}
	var pr *pathReport
	if len(paths) > 0 {
		if pr, err = lsPaths(ctx, e, docs, h.docs.DocumentInfo, paths); err != nil {
			return errorf(e, "%v", err)
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
	if *asJSON {
		v := map[string]any{"documents": out}
		if pr != nil {
			v["duplicates"], v["missing"] = append([]duplicateJSON{}, pr.duplicates...), append([]string{}, pr.missing...)
		}
		return printJSON(e, v)
	}
	// tabwriter writes each cell and its padding on its own: unbuffered,
	// listing 250,000 documents made 3.6 s of write calls.
	bw := bufio.NewWriterSize(e.stdout, 64<<10)
	tw := tabwriter.NewWriter(bw, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPAGES\tPASSAGES\tTITLE\tSOURCE")
	for _, d := range out {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", d.ID, d.Pages, d.Passages, termSafe(d.Title, false), termSafe(d.Source, false))
	}
	if err := tw.Flush(); err != nil {
		return errorf(e, "%v", err)
	}
	if err := bw.Flush(); err != nil {
		return errorf(e, "%v", err)
	}
	if pr != nil {
		printPathNotes(e, pr)
	}
	return 0
}

func runRm(ctx context.Context, e *env, args []string) int {
	fs, lf := libFlagSet("rm", "[flags] ID|PATH...", e)
	pos, st, ok := parseArgs(fs, args, e, some)
	if !ok {
		return st
	}
	h, st := openOrForward(ctx, e, lf, "rm", args, true, needSearch)
	if h == nil {
		return st
	}
	defer h.close()
	defer hostReads(ctx, e, h, "rm")()
	status := 0
	for _, a := range pos {
		id := a
		if d, err := h.docs.DocumentByPath(absPath(e, a)); err == nil {
			id = d.ID
		}
		removed, err := h.lib.Remove(id)
		if errors.Is(err, library.ErrNotFound) {
			fmt.Fprintf(e.stderr, "mcpvec: %s: no such document id or ingested path\n", termSafe(a, false))
			status = 1
			continue
		}
		if err != nil {
			// Each document is its own transaction: report this one and
			// try the rest (on a full disk a removal can free pages).
			errorf(e, "rm %s: %v", a, diskFull(err))
			status = 1
			continue
		}
		fmt.Fprintf(e.stdout, "removed %s (%d passages)\n", id, removed)
	}
	if err := h.lib.Save(); err != nil {
		return errorf(e, "save indexes (the removals are committed; the indexes are rebuilt from the store on the next open): %v", diskFull(err))
	}
	return status
}

// diskFull adds what to do to an error caused by a full disk.
func diskFull(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w (the disk is full: free some space and run the command again)", err)
	}
	return err
}

func runInfo(ctx context.Context, e *env, args []string) int {
	fs, lf := libFlagSet("info", "[flags]", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, st, ok := parseFlags(fs, args, e); !ok {
		return st
	}
	h, code := openOrForward(ctx, e, lf, "info", args, false, needSearch)
	if h == nil {
		return code
	}
	defer h.close()
	// Counts only: `mcpvec check` reads every record (at a million
	// passages info takes 2-3 s this way, 22 s with Check).
	hl, err := h.lib.Overview(ctx)
	if err != nil {
		return errorf(e, "%v", err)
	}
	st, meta, ix, checkErr, consistent := hl.Stats, hl.Meta, hl.Index, hl.Problems, hl.Consistent
	fileSize := st.FileBytes
	if fi, err := os.Stat(h.docs.Path()); err == nil && h.db != nil {
		fileSize = fi.Size()
	}
	info := map[string]any{
		"path": h.docs.Path(), "schema_version": meta.SchemaVersion, "documents": st.Documents,
		"pages": st.Pages, "passages": st.Chunks, "vectors": st.Vectors, "file_bytes": fileSize,
		"embedder": meta.Embedder, "index": ix, "consistent": consistent, "version": Version,
	}
	if checkErr != nil {
		info["problems"] = checkErr.Error()
	}
	if *asJSON {
		return printJSON(e, info)
	}
	emb := "none yet"
	if meta.Embedder != nil {
		emb = meta.Embedder.String()
	}
	fmt.Fprintf(e.stdout, "library:    %s (%.1f MiB, schema %d)\n", h.docs.Path(), float64(fileSize)/(1<<20), meta.SchemaVersion)
	fmt.Fprintf(e.stdout, "documents:  %d (%d pages)\npassages:   %d (%d vectors)\n", st.Documents, st.Pages, st.Chunks, st.Vectors)
	fmt.Fprintf(e.stdout, "embedder:   %s\n", emb)
	vectors := fmt.Sprintf("%d vectors", ix.VectorPassages)
	if ix.VectorsDeferred {
		vectors = "vectors not loaded"
	}
	fmt.Fprintf(e.stdout, "index:      %s, %d lexical passages — %s (counts; `mcpvec check` loads every index and reads every record)\n",
		vectors, ix.LexicalPassages, map[bool]string{true: "consistent", false: "INCONSISTENT"}[consistent])
	if checkErr != nil {
		fmt.Fprintf(e.stdout, "problems:\n%s\n", checkErr)
	}
	if !consistent {
		return 1
	}
	return 0
}
