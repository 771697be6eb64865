package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/store"
)

// Library is what a sync needs from the live library (library's
// Library implements it). Its methods must be safe for concurrent use;
// each may cross a network (a remote backend) and gives up when ctx ends.
type Library interface {
	// Documents lists every document without text.
	Documents(ctx context.Context) ([]*store.Document, error)
	// Remove deletes a document with its passages.
	Remove(ctx context.Context, id string) (int, error)
	// Move re-points a document at a new path, URL and modification time
	// without touching its passages.
	Move(ctx context.Context, id, path, sourceURL string, modTime time.Time) error
}

// IngestFunc extracts, embeds and stores files of root: the new and the
// changed ones. It is ingest.Ingester.Files with root's options.
type IngestFunc func(ctx context.Context, root Root, files []discover.File) (ingest.Summary, error)

// ErrNoRoots is returned by Run with no roots to sync.
var ErrNoRoots = errors.New("no folders to sync")

// Options configures a Syncer. Library and Ingest are required.
type Options struct {
	Library Library
	Ingest  IngestFunc
	// Supported says which file names to ingest (default
	// discover.Supported).
	Supported func(name string) bool
	// Settle leaves files modified less than this long ago for a later
	// run; 0 ingests everything found.
	Settle time.Duration
	// Report receives a line per failure and, with Verbose, per change;
	// nil discards them.
	Report  io.Writer
	Verbose bool
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
	// Settings, if set, is where lasting per-file failures are remembered
	// (FailuresSetting), so an unreadable file is reported once; store.DB
	// implements it.
	Settings Settings
	// Retry reads files remembered as unreadable again.
	Retry bool
}

// Syncer runs syncs against one library. It is safe for concurrent use.
type Syncer struct {
	opts Options
}

// New returns a Syncer.
func New(opts Options) *Syncer {
	if opts.Report == nil {
		opts.Report = io.Discard
	}
	return &Syncer{opts: opts}
}

// Summary counts what a sync did.
type Summary struct {
	Roots                                       int
	Added, Updated, Moved, Removed, Unchanged   int
	Pending, Duplicates, Skipped, Pages, Chunks int
	// Unreadable counts files left alone because an earlier sync could
	// not read them and they have not changed (Plan.Unreadable); they are
	// not in Failed.
	Unreadable int
	Failed     []*ingest.FileError
	Elapsed    time.Duration
}

// String is the one summary line printed at the end of a sync.
func (s Summary) String() string {
	folders := "folders"
	if s.Roots == 1 {
		folders = "folder"
	}
	line := fmt.Sprintf("synced %d %s: %d added, %d updated, %d moved, %d removed, %d unchanged, %d failed",
		s.Roots, folders, s.Added, s.Updated, s.Moved, s.Removed, s.Unchanged, len(s.Failed))
	if s.Duplicates > 0 {
		line += fmt.Sprintf(", %d duplicates", s.Duplicates)
	}
	if s.Pending > 0 {
		line += fmt.Sprintf(", %d still changing", s.Pending)
	}
	if s.Unreadable > 0 {
		line += fmt.Sprintf(", %d unreadable as before (--retry to try again)", s.Unreadable)
	}
	return line + " in " + s.Elapsed.Round(time.Millisecond).String()
}

// Run plans and applies a sync of roots. It returns ErrNoRoots without
// roots, Plan's errors, and ctx's error when cancelled; per-file and
// per-root failures are in Summary.Failed.
func (s *Syncer) Run(ctx context.Context, roots []Root) (Summary, error) {
	start := time.Now()
	if len(roots) == 0 {
		return Summary{}, ErrNoRoots
	}
	p, err := s.Plan(ctx, roots)
	if err != nil {
		return Summary{Roots: len(roots), Elapsed: time.Since(start)}, err
	}
	sum, err := s.Apply(ctx, p)
	sum.Elapsed = time.Since(start)
	return sum, err
}

// Apply carries out a plan: moves and touches, removals, then updates and
// additions through Options.Ingest, root by root. Each step is its own
// transaction. It returns ctx's error when cancelled; everything else is
// in Summary.Failed.
func (s *Syncer) Apply(ctx context.Context, p *Plan) (Summary, error) {
	sum := Summary{Roots: len(p.Roots), Unchanged: p.Unchanged, Pending: len(p.Pending), Duplicates: len(p.Duplicates),
		Skipped: len(p.Skipped), Unreadable: len(p.Unreadable), Failed: append([]*ingest.FileError(nil), p.Failed...)}
	for _, d := range p.Duplicates {
		fmt.Fprintf(s.opts.Report, "duplicate %s: same content as %s (document %s)\n", d.File.Path, d.OfPath, d.Of.ID)
	}
	for _, fe := range p.Failed {
		fmt.Fprintf(s.opts.Report, "failed %s\n", fe)
	}
	for _, err := range p.Warnings {
		fmt.Fprintf(s.opts.Report, "warning %v\n", err)
	}
	for _, sk := range p.Skipped {
		if s.opts.Verbose || sk.Reason == discover.ReasonNotRegular || sk.Reason == discover.ReasonOutsideLink {
			fmt.Fprintf(s.opts.Report, "skipped %s: %s\n", sk.Path, sk.Reason)
		}
	}
	s.moves(ctx, p.Move, &sum, &sum.Moved, "moved")
	s.moves(ctx, p.Touch, &sum, &sum.Unchanged, "")
	s.removes(ctx, p.Remove, &sum)
	for i, r := range p.Roots {
		s.ingest(ctx, r, pick(p.Update, i), &sum, &sum.Updated)
		s.ingest(ctx, r, pick(p.Add, i), &sum, &sum.Added)
	}
	if ctx.Err() == nil {
		if err := s.rememberFailures(p, sum.Failed); err != nil {
			fmt.Fprintf(s.opts.Report, "warning: remember unreadable files: %v\n", err)
		}
	}
	return sum, ctx.Err()
}

func (s *Syncer) moves(ctx context.Context, ms []Move, sum *Summary, count *int, verb string) {
	for _, m := range ms {
		if ctx.Err() != nil {
			return
		}
		if err := s.opts.Library.Move(ctx, m.Doc.ID, m.File.Path, m.URL, m.File.ModTime); err != nil {
			s.failed(sum, m.File.Path, fmt.Errorf("move from %s: %w", m.Doc.SourcePath, err))
			continue
		}
		*count++
		if verb != "" && s.opts.Verbose {
			fmt.Fprintf(s.opts.Report, "%s %s -> %s\n", verb, m.Doc.SourcePath, m.File.Path)
		}
	}
}

func (s *Syncer) removes(ctx context.Context, docs []*store.Document, sum *Summary) {
	for _, d := range docs {
		if ctx.Err() != nil {
			return
		}
		if _, err := s.opts.Library.Remove(ctx, d.ID); err != nil {
			s.failed(sum, d.SourcePath, fmt.Errorf("remove %s: %w", d.ID, err))
			continue
		}
		sum.Removed++
		if s.opts.Verbose {
			fmt.Fprintf(s.opts.Report, "removed %s (%s)\n", d.SourcePath, d.ID)
		}
	}
}

// ingest runs Options.Ingest on files and adds its counts, the ingested
// ones to *count.
func (s *Syncer) ingest(ctx context.Context, r Root, files []discover.File, sum *Summary, count *int) {
	if len(files) == 0 || ctx.Err() != nil {
		return
	}
	is, err := s.opts.Ingest(ctx, r, files)
	*count += is.Ingested
	sum.Unchanged += is.Unchanged
	sum.Duplicates += is.Duplicates
	sum.Pages += is.Pages
	sum.Chunks += is.Chunks
	sum.Failed = append(sum.Failed, is.Failed...)
	if err != nil && ctx.Err() == nil {
		s.failed(sum, r.Path, err)
	}
}

func (s *Syncer) failed(sum *Summary, path string, err error) {
	fe := &ingest.FileError{Path: path, Err: err}
	sum.Failed = append(sum.Failed, fe)
	fmt.Fprintf(s.opts.Report, "failed %s\n", fe)
}

// pick returns the files of items in root i.
func pick(items []Item, i int) []discover.File {
	var out []discover.File
	for _, it := range items {
		if it.Root == i {
			out = append(out, it.File)
		}
	}
	return out
}
