package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/store/export"
)

// importCounts is what an import did.
type importCounts struct{ imported, skipped, passages int }

// runImport reads an export (mcpvec export; gzipped or not, a file or
// - for stdin) into the library, new or existing, a file or a Weaviate
// collection: a document whose id is already there is skipped, or
// replaced with --replace. The vectors are stored as they are, so the
// library's embedder must be the export's (a new library takes it); the
// indexes are built from what is imported. One document is held at a time.
func runImport(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("import", "[--db LIB | --store URL] [--replace] FILE|-", e)
	lf.registerCollection(fs, e)
	replace := fs.Bool("replace", false, "replace documents whose id is already in the library (default: skip them)")
	pos, err := parseArgs(fs, args, e, one)
	if err != nil {
		return err
	}
	src := pos[0]
	if src != "-" {
		src = absPath(e, src)
	}
	cmd := []string{"import", "--replace=" + fmt.Sprint(*replace), "--", src}
	if lf.db != "" {
		cmd = append([]string{"import", "--db", absPath(e, lf.db)}, cmd[1:]...)
	}
	return withLibrary(ctx, e, lf, cmd, true, needStore, func(h *handle) error {
		in, err := openImport(e, src)
		if err != nil {
			return err
		}
		defer in.Close()
		start := time.Now()
		n, err := importInto(ctx, e, h, in, *replace)
		if err != nil {
			return failf("import %s: %w (%d documents imported before)", src, err, n.imported)
		}
		fmt.Fprintf(e.stdout, "imported %d documents (%d passages) into %s in %s; %d already there were %s\n",
			n.imported, n.passages, termSafe(h.docs.Path(), false), time.Since(start).Round(time.Millisecond),
			n.skipped, map[bool]string{false: "skipped", true: "replaced"}[*replace])
		return nil
	})
}

// openImport opens src ("-": stdin), gunzipping it when it starts with
// gzip's magic bytes.
func openImport(e *env, src string) (io.ReadCloser, error) {
	var r io.ReadCloser = io.NopCloser(e.stdin)
	if src == "-" && e.forwarded != nil {
		return nil, errors.New("import from stdin cannot be handed to the running server: give a file")
	}
	if src != "-" {
		f, err := os.Open(src)
		if err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
		r = f
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("import: %w", err)
		}
		return struct {
			io.Reader
			io.Closer
		}{zr, r}, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{br, r}, nil
}

// importInto reads the export in into h.
func importInto(ctx context.Context, e *env, h *handle, in io.Reader, replace bool) (importCounts, error) {
	var n importCounts
	x, err := export.NewReader(in)
	if err != nil {
		return n, err
	}
	hdr := x.Header()
	if err := adoptEmbedder(ctx, e, h, hdr); err != nil {
		return n, err
	}
	if h.lib == nil {
		// Nothing is embedded: the query path needs no embedder to index
		// the vectors it is handed.
		if err := h.reopenLib(ctx); err != nil {
			return n, err
		}
	}
	// The session embeds nothing: it is given the offline identity, so
	// no embedding cache is wrapped around it.
	w := h.lib.BeginWrites(ctx, h.emb, embed.Identity{Provider: embed.HashProvider}, 1, 1, 30*time.Second)
	w.GroupCommits()
	for {
		d, err := x.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil && !replace {
			if _, ierr := w.DocumentInfo(ctx, d.Doc.ID); ierr == nil {
				n.skipped++
				continue
			}
		}
		if err == nil {
			_, err = w.Put(ctx, d.Doc, d.Passages, d.Vectors, d.Original)
		}
		if err != nil {
			w.Finish(context.WithoutCancel(ctx), false)
			return n, err
		}
		n.imported++
		n.passages += len(d.Passages)
	}
	return n, w.Finish(context.WithoutCancel(ctx), true)
}

// adoptEmbedder records the export's embedder on a library that has none,
// or checks that the library's is the same.
func adoptEmbedder(ctx context.Context, e *env, h *handle, hdr export.Header) error {
	if hdr.Embedder == nil {
		return nil // nothing with vectors in it
	}
	meta, err := h.docs.Meta(ctx)
	if err != nil {
		return err
	}
	switch {
	case meta.Embedder == nil && e.forwarded != nil:
		return errors.New("the running server's library has no embedder yet: stop `mcpvec serve`, import, then start it again")
	case meta.Embedder == nil:
		return h.docs.SetEmbedder(ctx, *hdr.Embedder)
	case !meta.Embedder.Same(*hdr.Embedder):
		return fmt.Errorf("the library holds vectors of %s, the export %s: import into a new library (--db NEW), or reindex one of them", meta.Embedder, hdr.Embedder)
	}
	return nil
}
