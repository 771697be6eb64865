package main

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/internal/bytesize"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/export"
)

// runExport writes the library (a file or a Weaviate collection) in the
// portable format (store/export: JSON Lines of documents, passages,
// vectors and original bytes) to --out, gzipped when the name ends in
// .gz, or to stdout. One document is read at a time, each in one read,
// so memory is bounded by the largest document; documents written while
// it runs may or may not be in the export.
func runExport(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("export", "[--db LIB | --store URL] [--out FILE|-]", e)
	out := fs.String("out", "-", "where to write the export: a file (gzipped when it ends in .gz) or - for stdout")
	if _, err := parseArgs(fs, args, e, func(n int) bool { return n == 0 }); err != nil {
		return err
	}
	dst := *out
	if dst != "-" {
		dst = absPath(e, dst)
	}
	cmd := []string{"export", "--out", dst}
	if lf.db != "" {
		cmd = append(cmd, "--db", absPath(e, lf.db))
	}
	return withLibrary(ctx, e, lf, cmd, false, needStore, func(h *handle) error {
		return exportTo(ctx, e, h, dst)
	})
}

// exportTo writes the export of h to dst ("-": stdout), a file through
// dst.tmp renamed when complete.
func exportTo(ctx context.Context, e *env, h *handle, dst string) error {
	start := time.Now()
	if dst == "-" {
		n, err := exportLibrary(ctx, h, e.stdout)
		if err == nil {
			fmt.Fprintf(e.stderr, "exported %d documents in %s\n", n, time.Since(start).Round(time.Millisecond))
		}
		return err
	}
	tmp := dst + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	var n int
	_, err = writeSynced(f, func(w io.Writer) (store.BackupInfo, error) {
		n, err = exportMaybeGzip(ctx, h, w, strings.HasSuffix(dst, ".gz"))
		return store.BackupInfo{}, err
	})
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return failf("export to %s: %w", dst, err)
	}
	var size int64
	if fi, err := os.Stat(dst); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(e.stdout, "exported %d documents to %s (%s) in %s\n", n, termSafe(dst, false), bytesize.Format(size), time.Since(start).Round(time.Millisecond))
	return nil
}

func exportMaybeGzip(ctx context.Context, h *handle, w io.Writer, gz bool) (int, error) {
	if !gz {
		return exportLibrary(ctx, h, w)
	}
	zw := gzip.NewWriter(w)
	n, err := exportLibrary(ctx, h, zw)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// exportLibrary writes every document of h to w and returns how many.
func exportLibrary(ctx context.Context, h *handle, w io.Writer) (int, error) {
	docs, err := h.docs.Documents(ctx)
	if err != nil {
		return 0, err
	}
	meta, err := h.docs.Meta(ctx)
	if err != nil {
		return 0, err
	}
	x, err := export.NewWriter(w, export.Header{Created: time.Now().UTC(), Mcpvec: Version, Source: h.docs.Path(),
		Embedder: meta.Embedder, Analyzer: analysis.AnalyzerName, Documents: len(docs)})
	if err != nil {
		return 0, err
	}
	read := fullReader(h)
	n := 0
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		full, err := read(ctx, d.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue // removed since the listing
		}
		if err != nil {
			return n, fmt.Errorf("read %s: %w", d.ID, err)
		}
		if err := x.Write(full); err != nil {
			return n, err
		}
		n++
	}
	return n, x.Close()
}

// fullReader returns how to read a whole document of h: from the file in
// one transaction, or from the Weaviate collection.
func fullReader(h *handle) func(ctx context.Context, id string) (export.Document, error) {
	if h.db != nil {
		return func(_ context.Context, id string) (export.Document, error) {
			doc, chunks, vecs, original, err := h.db.FullDocument(id)
			return export.Document{Doc: doc, Passages: chunks, Vectors: vecs, Original: original}, err
		}
	}
	wv := h.be.(weaviateBackend).wv.Collection()
	return func(ctx context.Context, id string) (export.Document, error) {
		ctx, cancel := context.WithTimeout(ctx, wvCallTimeout)
		defer cancel()
		w, err := wv.FullDocument(ctx, id)
		return export.Document{Doc: w.Doc, Passages: w.Chunks, Vectors: w.Vectors, Original: w.Original}, err
	}
}
