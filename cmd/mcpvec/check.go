package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// checkOpts are the flags of `mcpvec check`.
type checkOpts struct {
	lf      libFlags
	repair  bool
	replace bool
}

// runCheck verifies a library: bbolt's page consistency, the store's
// invariants and the live library's (every passage has a vector, the index
// sizes equal the passage count). It exits 0 when clean and 1 with the
// problems. --repair rebuilds the derived indexes in place or, when the file
// is damaged or the store itself is inconsistent, copies every readable
// document into a new library file next to it.
func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("check", "[flags]", e)
	var o checkOpts
	o.lf.register(fs)
	fs.BoolVar(&o.repair, "repair", false, "rebuild the indexes; copy what is readable out of a damaged file into a new library")
	fs.BoolVar(&o.replace, "replace", false, "with --repair: put the repaired library in place, moving the damaged file aside")
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if st := e.forwarded; st != nil {
		if o.repair {
			return errors.New("check --repair needs the library to itself: stop `mcpvec serve` first")
		}
		return reportProblems(e, st.db.Path(), checkLive(ctx, st.db, st.live.Current()))
	}
	if url, err := o.lf.storeURL(e); err != nil {
		return err
	} else if url != "" {
		return checkCollection(ctx, e, url, o.repair)
	}
	path, err := o.lf.path(e)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return failf("no library at %s: %w", path, err)
	}
	if o.repair {
		return repairLibrary(ctx, e, path, o.replace)
	}
	db, err := openFile(ctx, e, path, false, 0)
	var fw *forwardTo
	switch {
	case errors.As(err, &fw):
		return forward(ctx, e, fw.client, append([]string{"check"}, args...))
	case errors.Is(err, store.ErrUnwritten):
		fmt.Fprintf(e.stdout, "%s: ok (empty: nothing ingested yet)\n", termSafe(path, false))
		return nil
	case errors.Is(err, store.ErrCorrupt), errors.Is(err, store.ErrEmpty):
		return reportProblems(e, path, []string{oneLine(err)})
	case err != nil:
		return err
	}
	defer db.Close()
	return reportProblems(e, path, checkDB(ctx, db))
}

// checkDB runs the store's check and, when it passes, loads the indexes
// and compares them with the store (the store is not checked twice: at a
// million passages its check reads the whole file, 16 s).
func checkDB(ctx context.Context, db *store.DB) []string {
	problems := splitErr(db.Check())
	if len(problems) > 0 {
		return problems
	}
	lib, err := embedded.Open(ctx, db, nil, library.Options{})
	if err != nil {
		return []string{"load indexes: " + oneLine(err)}
	}
	lib.IndexStats(ctx) // loads a vector index Open deferred, which Overview leaves
	h, err := lib.Overview(ctx)
	return healthProblems(h, err)
}

// checkCollection checks the Weaviate collection at url through the
// library's consistency rule: its counts of documents, passages and
// vectors agree, and each passage is indexed. --repair is refused: there
// is nothing derived to rebuild in process.
func checkCollection(ctx context.Context, e *env, url string, repair bool) error {
	if repair {
		return errors.New("check --repair rebuilds a library file; a Weaviate collection keeps its own indexes")
	}
	be, err := openWeaviate(ctx, e, url, nil)
	if err != nil {
		return err
	}
	defer be.Close()
	lib, err := be.queryPath(ctx, nil)
	if err != nil {
		return err
	}
	h, err := lib.Check(ctx)
	return reportProblems(e, url, healthProblems(h, err))
}

// checkLive applies the library's consistency rule.
func checkLive(ctx context.Context, db *store.DB, lib *library.Library) []string {
	h, err := lib.Check(ctx)
	return healthProblems(h, err)
}

// healthProblems lists what h found wrong, or err.
func healthProblems(h library.Health, err error) []string {
	if err != nil {
		return []string{oneLine(err)}
	}
	problems := splitErr(h.Problems)
	n := h.Stats.Chunks
	if h.Stats.Vectors != n {
		problems = append(problems, fmt.Sprintf("%d passages but %d vectors", n, h.Stats.Vectors))
	}
	if h.Index.LexicalPassages != n {
		problems = append(problems, fmt.Sprintf("lexical index holds %d passages, the library %d", h.Index.LexicalPassages, n))
	}
	if h.Meta.Embedder != nil && h.Index.VectorPassages != n {
		problems = append(problems, fmt.Sprintf("vector index holds %d passages, the library %d", h.Index.VectorPassages, n))
	}
	if r := h.Index.LexicalRebuilt; r != "" {
		problems = append(problems, "BM25 index unusable as saved, rebuilt from the passages for this command only ("+r+"); `mcpvec check --repair` saves a sound one")
	}
	if len(problems) == 0 && !h.Consistent {
		problems = append(problems, "inconsistent indexes")
	}
	return problems
}

// reportProblems prints the verdict; problems are errReported.
func reportProblems(e *env, path string, problems []string) error {
	if len(problems) == 0 {
		fmt.Fprintf(e.stdout, "%s: ok\n", termSafe(path, false))
		return nil
	}
	fmt.Fprintf(e.stdout, "%s: %d problems\n", termSafe(path, false), len(problems))
	for _, p := range problems {
		fmt.Fprintf(e.stdout, "  %s\n", termSafe(p, false))
	}
	fmt.Fprintln(e.stdout, "run `mcpvec check --repair` to rebuild what can be derived and copy out what is readable")
	return errReported
}

func splitErr(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func oneLine(err error) string {
	return strings.Join(splitErr(err), "; ")
}

// damagedHint is the one line every command prints for a damaged or empty
// library file instead of its own error (errorLine applies it); ok is false
// for other errors.
func damagedHint(err error) (string, bool) {
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return fmt.Sprintf("%s — run `mcpvec check --repair` to copy every readable document into a new library", oneLine(err)), true
	case errors.Is(err, store.ErrEmpty):
		return fmt.Sprintf("%s — remove it, or run `mcpvec ingest` to start a new library there", oneLine(err)), true
	}
	return "", false
}

// repairedName is where check --repair writes the new library.
func repairedName(path, tag string, now time.Time) string {
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.%s-%s%s", strings.TrimSuffix(path, ext), tag, now.UTC().Format("20060102T150405Z"), ext)
}
