package discover

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Options configures WalkWith. The zero value walks like Walk with nil.
type Options struct {
	// Supported says which file names to list; nil means Supported.
	Supported func(name string) bool
	// Exclude holds gitignore-style patterns (as in an ignore file at each
	// folder argument's root), e.g. "*.draft.md" or "archive/".
	Exclude []string
	// IgnoreFiles reads IgnoreFile in every walked folder.
	IgnoreFiles bool
	// SkipTemporary skips partial downloads and editors' temporary files
	// (see Temporary).
	SkipTemporary bool
	// NoOutsideLinks skips symlinks, to files or folders, whose target
	// lies outside the folder argument (ReasonOutsideLink): a synced
	// folder's link to ~/.ssh/id_rsa must not put that key in the library.
	NoOutsideLinks bool
	// OnIgnoreError is called with a .mcpvecignore that cannot be read or
	// parsed (the rest of it still applies); nil drops the error.
	OnIgnoreError func(error)
}

// WalkWith is Walk with ignore rules: Exclude patterns and IgnoreFile
// files (for folder arguments; a file argument is always listed) and
// temporary files. Ignored entries are returned in skipped with
// ReasonIgnored or ReasonTemporary; an ignored folder is not walked. A
// malformed Exclude pattern is returned as ErrBadPattern before walking.
// It is safe for concurrent use.
func WalkWith(ctx context.Context, args []string, opts *Options) (files []File, skipped []Skipped, errs []error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Supported == nil {
		o.Supported = Supported
	}
	if _, err := o.excludeRules(); err != nil {
		return nil, nil, []error{err}
	}
	return walk(ctx, args, &o)
}

func (o *Options) excludeRules() (*Rules, error) {
	r := &Rules{}
	for _, p := range o.Exclude {
		if err := r.Add("", p); err != nil {
			return r, err
		}
	}
	return r, nil
}

// rootRules returns a fresh copy of the exclude rules for one folder
// argument.
func (o *Options) rootRules() *Rules {
	r, _ := o.excludeRules() // validated by WalkWith
	return r
}

// readIgnoreFile adds folder p's IgnoreFile rules, based at p's path below
// root.
func (w *walker) readIgnoreFile(p, root string) {
	if !w.opts.IgnoreFiles || w.rules == nil {
		return
	}
	data, err := os.ReadFile(filepath.Join(p, IgnoreFile))
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	report := w.opts.OnIgnoreError
	if report == nil {
		report = func(error) {}
	}
	if err != nil {
		report(err)
		return
	}
	base, _ := filepath.Rel(root, p)
	if base == "." {
		base = ""
	}
	r, err := ParseRules(filepath.ToSlash(base), data)
	if err != nil {
		report(&fs.PathError{Op: "parse", Path: filepath.Join(p, IgnoreFile), Err: err})
	}
	w.rules.Merge(r)
}

// ignored reports, and records as skipped, an entry excluded by the rules
// or a temporary file.
func (w *walker) ignored(p, rel string, info fs.FileInfo) bool {
	if w.opts.SkipTemporary && !info.IsDir() && Temporary(path.Base(rel)) {
		w.skipped = append(w.skipped, Skipped{Path: p, Reason: ReasonTemporary})
		return true
	}
	if w.rules.Match(rel, info.IsDir()) {
		w.skipped = append(w.skipped, Skipped{Path: p, Reason: ReasonIgnored})
		return true
	}
	return false
}
