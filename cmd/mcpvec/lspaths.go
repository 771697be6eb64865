package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/store"
)

// duplicateJSON is a file of `ls PATH` that is not in the library because
// another file with the same content is.
type duplicateJSON struct {
	Path       string `json:"path"`
	SameAs     string `json:"same_as"`
	DocumentID string `json:"document_id"`
}

// pathReport is what `ls PATH...` found for its arguments: the documents
// of those files and folders, the files left out as duplicates of a
// document, and the files not in the library at all.
type pathReport struct {
	docs       []*store.Document
	duplicates []duplicateJSON
	missing    []string
	unreadable map[string]string // why a sync could not read a missing file
}

// lsPaths answers `ls PATH...`: the documents whose source is one of
// paths or lies under one of them, and for each supported file there with
// no document of its own, why: the same content is in the library under
// another path (ingest and sync skip such a file), or it is not there.
func lsPaths(ctx context.Context, e *env, docs []*store.Document, lookup func(id string) (*store.Document, error), paths []string) (*pathReport, error) {
	var r pathReport
	byPath := make(map[string]bool, len(docs))
	for _, d := range docs {
		byPath[d.SourcePath] = true
	}
	abs := make([]string, len(paths))
	for i, p := range paths {
		abs[i] = absPath(e, p)
	}
	for _, d := range docs {
		if under(d.SourcePath, abs) {
			r.docs = append(r.docs, d)
		}
	}
	// A folder that cannot be read shows as no files: ls lists, it does
	// not fail on one folder.
	files, _, _ := discover.Walk(ctx, abs, nil)
	for _, f := range files {
		if byPath[f.Path] {
			continue
		}
		if other, ok := sameContent(f.Path, lookup); ok {
			r.duplicates = append(r.duplicates, duplicateJSON{Path: f.Path, SameAs: other.SourcePath, DocumentID: other.ID})
			continue
		}
		r.missing = append(r.missing, f.Path)
	}
	for _, p := range abs {
		if _, err := os.Stat(p); err != nil && !slices.ContainsFunc(r.docs, func(d *store.Document) bool { return under(d.SourcePath, []string{p}) }) {
			r.missing = append(r.missing, p)
		}
	}
	return &r, nil
}

// under reports whether path is one of roots or lies in one of them.
func under(path string, roots []string) bool {
	for _, root := range roots {
		if path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// sameContent is the document holding the content of the file at path
// under another path, if any.
func sameContent(path string, lookup func(id string) (*store.Document, error)) (*store.Document, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	sum, err := ingest.ContentHash(f)
	if err != nil {
		return nil, false
	}
	d, err := lookup(sum[:16])
	if err != nil || d.SHA256 != sum || d.SourcePath == path {
		return nil, false
	}
	return d, true
}

// printPathNotes prints one line for each file of `ls PATH` without a
// document of its own.
func printPathNotes(e *env, r *pathReport) {
	for _, d := range r.duplicates {
		fmt.Fprintf(e.stdout, "%s has the same content as %s (document %s): skipped as a duplicate\n",
			termSafe(d.Path, false), termSafe(d.SameAs, false), d.DocumentID)
	}
	for _, p := range r.missing {
		if why, ok := r.unreadable[p]; ok {
			fmt.Fprintf(e.stdout, "%s is not in the library: a sync could not read it (%s); `mcpvec sync --retry` reads it again\n",
				termSafe(p, false), termSafe(why, false))
			continue
		}
		fmt.Fprintf(e.stdout, "%s is not in the library\n", termSafe(p, false))
	}
}
