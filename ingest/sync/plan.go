package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/store"
)

// Item is one file to ingest, with the index of its root in Plan.Roots.
type Item struct {
	Root int
	File discover.File
}

// Move re-points Doc at File (in Plan.Roots[Root]) with source URL URL.
type Move struct {
	Doc  *store.Document
	Root int
	File discover.File
	URL  string
}

// Duplicate is a file with the same content as document Of, at another
// path; it is not ingested.
type Duplicate struct {
	File   discover.File
	Of     *store.Document
	OfPath string // where Of is after the plan's moves
}

// Plan is what a sync will do. Build it with Syncer.Plan; Apply runs it.
type Plan struct {
	Roots  []Root
	Add    []Item            // new files
	Update []Item            // changed content at a known path
	Move   []Move            // known content at a new path
	Touch  []Move            // same content and path, new time (or URL)
	Remove []*store.Document // documents whose file is gone (or now a duplicate)
	// Duplicates are files whose content another document already has.
	Duplicates []Duplicate
	Unchanged  int
	Pending    []discover.File     // modified too recently (Options.Settle)
	Skipped    []discover.Skipped  // unsupported, ignored, temporary
	Failed     []*ingest.FileError // unreadable files and roots
	// Unreadable are files an earlier sync failed to read for a lasting
	// reason and that have not changed since: not read again.
	Unreadable []Unreadable
	// Warnings are problems that change nothing, e.g. a malformed line in
	// a .mcpvecignore (the rest of the file applies).
	Warnings []error

	failures       map[string]failure       // remembered, by path
	failuresStored []byte                   // the setting as read
	hashFailed     map[string]discover.File // files that failed to be hashed
}

// planner holds the library's documents while a Plan is built.
type planner struct {
	s      *Syncer
	plan   *Plan
	byPath map[string]*store.Document
	byHash map[string][]*store.Document
	seen   map[string]bool // paths found in the roots
	keep   []string        // folders that could not be walked
	fresh  []fresh         // new or changed files, judged after the walk
	// changed holds the paths whose document no longer matches the file.
	changed map[string]bool
	// taken holds documents already moved (to the path given) or displaced
	// ("") by this plan.
	taken map[string]string
}

// fresh is a file at a path without a document (old nil) or whose
// document has other content (old).
type fresh struct {
	item Item
	hash string
	old  *store.Document
}

// Plan walks the roots and compares them with the library. Only changed
// and new files are read (to hash them). It returns an error when the
// library cannot be listed or ctx is cancelled.
func (s *Syncer) Plan(ctx context.Context, roots []Root) (*Plan, error) {
	docs, err := s.opts.Library.Documents(ctx)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	failures, stored, err := s.loadFailures()
	if err != nil {
		return nil, err
	}
	plan := &Plan{Roots: roots, failures: failures, failuresStored: stored, hashFailed: map[string]discover.File{}}
	p := &planner{s: s, plan: plan, byPath: map[string]*store.Document{},
		byHash: map[string][]*store.Document{}, seen: map[string]bool{}, changed: map[string]bool{}, taken: map[string]string{}}
	for _, d := range docs {
		p.byPath[d.SourcePath] = d
		p.byHash[d.SHA256] = append(p.byHash[d.SHA256], d)
	}
	for i := range roots {
		if err := p.root(ctx, i); err != nil {
			return nil, err
		}
	}
	gone := p.gone()
	p.matchMoves(gone)
	for _, d := range docs {
		if gone[d.ID] {
			p.plan.Remove = append(p.plan.Remove, d)
		}
	}
	return p.plan, ctx.Err()
}

// root walks one root and judges each file in it.
func (p *planner) root(ctx context.Context, i int) error {
	r := p.plan.Roots[i]
	files, skipped, errs := discover.WalkWith(ctx, []string{r.Path}, &discover.Options{
		Supported: p.s.opts.Supported, Exclude: r.Exclude, IgnoreFiles: true, SkipTemporary: true, NoOutsideLinks: !r.FollowLinks,
		OnIgnoreError: func(err error) { p.plan.Warnings = append(p.plan.Warnings, err) },
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	p.plan.Skipped = append(p.plan.Skipped, skipped...)
	for _, err := range errs {
		p.walkError(r, err)
	}
	for _, f := range files {
		if p.seen[f.Path] {
			continue // nested or repeated roots: judged once
		}
		p.seen[f.Path] = true
		p.file(Item{Root: i, File: f})
	}
	return nil
}

// walkError records a folder that could not be walked and keeps its
// documents, unless it is gone (then its documents go too).
func (p *planner) walkError(r Root, err error) {
	var pe *fs.PathError
	path := r.Path
	if errors.As(err, &pe) {
		path = pe.Path
	}
	if errors.Is(err, fs.ErrNotExist) && path != r.Path {
		return
	}
	p.keep = append(p.keep, path)
	if path == r.Path {
		err = fmt.Errorf("%w (its documents are kept)", err)
	}
	p.fail(path, err)
}

func (p *planner) fail(path string, err error) {
	p.plan.Failed = append(p.plan.Failed, &ingest.FileError{Path: path, Err: err})
}

// file judges one file found in a root.
func (p *planner) file(it Item) {
	f := it.File
	d := p.byPath[f.Path]
	if d != nil && d.Size == f.Size && d.ModTime.Equal(f.ModTime) {
		p.plan.Unchanged++
		return
	}
	if st := p.s.opts.Settle; st > 0 && p.s.now().Sub(f.ModTime) < st {
		p.plan.Pending = append(p.plan.Pending, f)
		return
	}
	if known, ok := p.plan.failures[f.Path]; ok && known.matches(f) {
		p.plan.Unreadable = append(p.plan.Unreadable, Unreadable{File: f, failure: known})
		return
	}
	hash, err := hashFile(f)
	if errors.Is(err, discover.ErrChanged) {
		p.plan.Pending = append(p.plan.Pending, f) // still being written: a later run
		return
	}
	if err != nil {
		p.plan.hashFailed[f.Path] = f
		p.fail(f.Path, err)
		return
	}
	url := ingest.SourceURL(p.plan.Roots[it.Root].URLPrefix, f.Rel)
	if d != nil && d.SHA256 == hash {
		p.plan.Touch = append(p.plan.Touch, Move{Doc: d, Root: it.Root, File: f, URL: url})
		return
	}
	if d != nil {
		p.changed[f.Path] = true
	}
	p.fresh = append(p.fresh, fresh{it, hash, d})
}

// gone returns the ids of documents under the roots whose file was not
// found, except below folders that could not be walked.
func (p *planner) gone() map[string]bool {
	out := map[string]bool{}
	for path, d := range p.byPath {
		if p.seen[path] || !p.inRoots(path) || p.kept(path) {
			continue
		}
		out[d.ID] = true
	}
	return out
}

func (p *planner) inRoots(path string) bool {
	for _, r := range p.plan.Roots {
		if r.Contains(path) {
			return true
		}
	}
	return false
}

func (p *planner) kept(path string) bool {
	for _, k := range p.keep {
		if under(k, path) {
			return true
		}
	}
	return false
}

// matchMoves judges the new and changed files. One whose content belongs
// to a document that left its own path (gone, changed there, or outside
// the roots and missing) is a move of that document, displacing the
// path's old document if any. One whose content another document already
// has is a duplicate: its path's old document is removed. The rest are
// additions and updates. A claimed document leaves gone.
func (p *planner) matchMoves(gone map[string]bool) {
	for _, fr := range p.fresh {
		if fr.old != nil {
			if _, ok := p.taken[fr.old.ID]; ok {
				fr.old = nil // already moved away or displaced: a plain add
			}
		}
		claim, dup, dupPath := p.claim(fr.hash, gone)
		switch {
		case claim != nil:
			p.taken[claim.ID] = fr.item.File.Path
			delete(gone, claim.ID)
			if fr.old != nil {
				p.taken[fr.old.ID] = "" // MoveDocument replaces it
			}
			url := ingest.SourceURL(p.plan.Roots[fr.item.Root].URLPrefix, fr.item.File.Rel)
			p.plan.Move = append(p.plan.Move, Move{Doc: claim, Root: fr.item.Root, File: fr.item.File, URL: url})
		case dup != nil:
			p.plan.Duplicates = append(p.plan.Duplicates, Duplicate{File: fr.item.File, Of: dup, OfPath: dupPath})
			if fr.old != nil {
				p.taken[fr.old.ID] = ""
				p.plan.Remove = append(p.plan.Remove, fr.old)
			}
		case fr.old != nil:
			p.plan.Update = append(p.plan.Update, fr.item)
		default:
			p.plan.Add = append(p.plan.Add, fr.item)
		}
	}
}

// claim returns a document with content hash that may move (claim), or
// else one that stays, or already moved, at dupPath (dup).
func (p *planner) claim(hash string, gone map[string]bool) (claim, dup *store.Document, dupPath string) {
	for _, d := range p.byHash[hash] {
		if to, ok := p.taken[d.ID]; ok {
			if to != "" {
				dup, dupPath = d, to
			}
			continue
		}
		if gone[d.ID] || p.changed[d.SourcePath] || (!p.inRoots(d.SourcePath) && missing(d.SourcePath)) {
			return d, nil, ""
		}
		dup, dupPath = d, d.SourcePath
	}
	return nil, dup, dupPath
}

func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// hashFile returns the hex SHA-256 of the listed file's content, read as
// discover.File.Read does: the file that was listed, at most its listed
// size (a longer or shorter one is discover.ErrChanged).
func hashFile(f discover.File) (string, error) {
	fh, err := f.Open()
	if err != nil {
		return "", err
	}
	defer fh.Close()
	cr := &countingReader{r: io.LimitReader(fh, f.Size+1)}
	sum, err := ingest.ContentHash(cr)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", f.Path, err)
	}
	if cr.n != f.Size {
		return "", fmt.Errorf("read %s: %w: %d bytes, listed with %d", f.Path, discover.ErrChanged, cr.n, f.Size)
	}
	return sum, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool {
	return len(p.Add)+len(p.Update)+len(p.Move)+len(p.Touch)+len(p.Remove) == 0
}

// Print writes one line per change ("add", "update", "move", "remove") and
// per failure, for --dry-run.
func (p *Plan) Print(w io.Writer) {
	for _, it := range p.Add {
		fmt.Fprintf(w, "add     %s\n", it.File.Path)
	}
	for _, it := range p.Update {
		fmt.Fprintf(w, "update  %s\n", it.File.Path)
	}
	for _, m := range p.Move {
		fmt.Fprintf(w, "move    %s -> %s\n", m.Doc.SourcePath, m.File.Path)
	}
	for _, d := range p.Remove {
		fmt.Fprintf(w, "remove  %s (%s)\n", d.SourcePath, d.ID)
	}
	for _, d := range p.Duplicates {
		fmt.Fprintf(w, "dup     %s (same content as %s)\n", d.File.Path, d.OfPath)
	}
	for _, f := range p.Pending {
		fmt.Fprintf(w, "wait    %s (still changing)\n", f.Path)
	}
	for _, fe := range p.Failed {
		fmt.Fprintf(w, "failed  %s\n", fe)
	}
	for _, u := range p.Unreadable {
		fmt.Fprintf(w, "unread  %s: %s (as before; --retry tries again)\n", u.File.Path, u.Err)
	}
	for _, err := range p.Warnings {
		fmt.Fprintf(w, "warning %v\n", err)
	}
	fmt.Fprintf(w, "plan: %d to add, %d to update, %d to move, %d to remove, %d unchanged, %d failed\n",
		len(p.Add), len(p.Update), len(p.Move), len(p.Remove), p.Unchanged+len(p.Touch), len(p.Failed))
}

// now is the Syncer's clock.
func (s *Syncer) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}
