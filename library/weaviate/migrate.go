package weaviate

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/store"
)

// CopyOptions configures CopyFrom and CopyTo.
type CopyOptions struct {
	// Settings names the settings to carry over when the source has them
	// (e.g. the link-signing key), so links signed before still verify.
	Settings []string
	// Progress, when set, is called after each document.
	Progress func(CopyProgress)
	// Group is the most documents written together (default 50; 1 writes
	// each alone): a group costs Weaviate a few requests where each
	// document alone costs as many. A group also closes at 1,000 passages
	// or 8 MiB of text and originals.
	Group int
}

// CopyProgress counts a copy's documents.
type CopyProgress struct {
	Total   int    // documents in the source
	Copied  int    // written this run
	Skipped int    // already in the destination (an earlier, interrupted run)
	Last    string // the document just handled
}

// Document sources and sinks both kinds of library offer.
type source interface {
	documents(ctx context.Context) ([]*store.Document, error)
	read(ctx context.Context, d *store.Document) (*store.Document, []store.Chunk, [][]float32, []byte, error)
	setting(ctx context.Context, name string) ([]byte, error)
	meta(ctx context.Context) (store.Meta, error)
}

type sink interface {
	info(ctx context.Context, id string) (*store.Document, error)
	put(ctx context.Context, ws []DocumentWrite) error
	putSetting(ctx context.Context, name string, v []byte) error
	setEmbedder(ctx context.Context, e store.EmbedderInfo) error
}

// CopyFrom copies an embedded library into b: documents with their text,
// page starts and originals, passages with their vectors (no extraction, no
// embedding), the embedder identity and opts.Settings. It is resumable: a
// document already in b with the same content hash and passage count is
// skipped. The embedders must agree (store.ErrEmbedderMismatch).
func (b *Collection) CopyFrom(ctx context.Context, src *store.DB, opts CopyOptions) (CopyProgress, error) {
	return copyLibrary(ctx, dbSide{src}, backendSide{b}, opts)
}

// CopyTo copies b into the embedded library dst, as CopyFrom does the
// other way. dst's search indexes are rebuilt from the copied passages when
// the library is next opened.
func (b *Collection) CopyTo(ctx context.Context, dst *store.DB, opts CopyOptions) (CopyProgress, error) {
	return copyLibrary(ctx, backendSide{b}, dbSide{dst}, opts)
}

func copyLibrary(ctx context.Context, src source, dst sink, opts CopyOptions) (CopyProgress, error) {
	var p CopyProgress
	if err := copyMeta(ctx, src, dst, opts.Settings); err != nil {
		return p, err
	}
	docs, err := src.documents(ctx)
	if err != nil {
		return p, fmt.Errorf("copy: %w", err)
	}
	p.Total = len(docs)
	if opts.Group <= 0 {
		opts.Group = 50
	}
	var g copyGroup
	flush := func() error {
		if err := g.write(ctx, dst); err != nil {
			return err
		}
		for _, w := range g.ws {
			p.Last, p.Copied = w.Doc.ID, p.Copied+1
			if opts.Progress != nil {
				opts.Progress(p)
			}
		}
		g = copyGroup{}
		return nil
	}
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		if old, err := dst.info(ctx, d.ID); err == nil && old.SHA256 == d.SHA256 && len(old.Chunks) == len(d.Chunks) {
			p.Last, p.Skipped = d.ID, p.Skipped+1
			if opts.Progress != nil {
				opts.Progress(p)
			}
			continue
		}
		if err := g.add(ctx, src, d); err != nil {
			return p, err
		}
		if g.full(opts.Group) {
			if err := flush(); err != nil {
				return p, err
			}
		}
	}
	return p, flush()
}

// copyGroup is documents read from the source and not yet written.
type copyGroup struct {
	ws              []DocumentWrite
	passages, bytes int
}

func (g *copyGroup) add(ctx context.Context, src source, d *store.Document) error {
	full, chunks, vecs, original, err := src.read(ctx, d)
	if err != nil {
		return fmt.Errorf("copy document %s: %w", d.ID, err)
	}
	g.ws = append(g.ws, DocumentWrite{full, chunks, vecs, original})
	g.passages += len(chunks)
	g.bytes += len(full.Text) + len(original)
	return nil
}

func (g *copyGroup) full(most int) bool {
	return len(g.ws) >= most || g.passages >= 1000 || g.bytes >= 8<<20
}

func (g *copyGroup) write(ctx context.Context, dst sink) error {
	if len(g.ws) == 0 {
		return nil
	}
	if err := dst.put(ctx, g.ws); err != nil {
		return fmt.Errorf("copy documents %s to %s: %w", g.ws[0].Doc.ID, g.ws[len(g.ws)-1].Doc.ID, err)
	}
	return nil
}

// copyMeta records the source's embedder in the destination and copies the
// named settings that exist.
func copyMeta(ctx context.Context, src source, dst sink, settings []string) error {
	m, err := src.meta(ctx)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if m.Embedder != nil {
		if err := dst.setEmbedder(ctx, *m.Embedder); err != nil {
			return fmt.Errorf("copy: %w", err)
		}
	}
	for _, name := range settings {
		v, err := src.setting(ctx, name)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err == nil {
			err = dst.putSetting(ctx, name, v)
		}
		if err != nil {
			return fmt.Errorf("copy setting %q: %w", name, err)
		}
	}
	return nil
}
