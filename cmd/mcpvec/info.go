package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mcpvec/mcpvec/library"
)

func runInfo(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("info", "[flags]", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	return withLibrary(ctx, e, lf, append([]string{"info"}, args...), false, needSearch, func(h *handle) error {
		// Counts only: `mcpvec check` reads every record (at a million
		// passages info takes 2-3 s this way, 22 s with Check).
		hl, err := h.lib.Overview(ctx)
		if err != nil {
			return err
		}
		return printInfo(ctx, e, h, hl, *asJSON)
	})
}

// printInfo prints the overview of the library; an inconsistent one is
// errReported.
func printInfo(ctx context.Context, e *env, h *handle, hl library.Health, asJSON bool) error {
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
	if hl.Writing {
		info["writing"] = true // counts read while writes landed: consistent is no finding
	}
	if checkErr != nil {
		info["problems"] = checkErr.Error()
	}
	rerankLine, rec := rerankInfo(ctx, h.docs)
	info["reranker"] = rec
	wanted := corpusWanted(h.db)
	if wanted {
		info["corpus_vectors"] = fmt.Sprintf("waiting for %d passages; search is lexical", corpusMinPassages)
	}
	if asJSON {
		return writeJSON(e.stdout, info)
	}
	emb := "none yet"
	if meta.Embedder != nil {
		emb = meta.Embedder.String()
	}
	fmt.Fprintf(e.stdout, "library:    %s (%.1f MiB, schema %d)\n", h.docs.Path(), float64(fileSize)/(1<<20), meta.SchemaVersion)
	fmt.Fprintf(e.stdout, "documents:  %d (%d pages)\npassages:   %d (%d vectors)\n", st.Documents, st.Pages, st.Chunks, st.Vectors)
	fmt.Fprintf(e.stdout, "embedder:   %s\nreranker:   %s\n", emb, rerankLine)
	if wanted {
		fmt.Fprintf(e.stdout, "corpus:     vectors fitted on the library once it has %d passages (%d now); search is lexical until then\n", corpusMinPassages, st.Chunks)
	}
	vectors := fmt.Sprintf("%d vectors", ix.VectorPassages)
	if ix.VectorsDeferred {
		vectors = "vectors not loaded"
	}
	verdict := map[bool]string{true: "consistent", false: "INCONSISTENT"}[consistent]
	if hl.Writing && !consistent {
		verdict = "being written (writes landed while it was read; run again when they end)"
	}
	fmt.Fprintf(e.stdout, "index:      %s, %d lexical passages — %s (counts; `mcpvec check` loads every index and reads every record)\n",
		vectors, ix.LexicalPassages, verdict)
	if checkErr != nil {
		fmt.Fprintf(e.stdout, "problems:\n%s\n", checkErr)
	}
	if !consistent && !hl.Writing {
		return errReported
	}
	return nil
}
