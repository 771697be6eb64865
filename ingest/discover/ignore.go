package discover

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"
)

// IgnoreFile is the name of the per-folder ignore file read by WalkWith:
// gitignore syntax, applying to the folder it is in and everything below.
const IgnoreFile = ".mcpvecignore"

// Rules is an ordered list of gitignore-style patterns. The last pattern
// that matches a path decides: a plain pattern ignores it, a "!" pattern
// brings it back. The zero value ignores nothing. A Rules is safe for
// concurrent reads; Add must not run concurrently with anything.
type Rules struct {
	pats []pattern
}

// pattern is one parsed line, matching paths below base.
type pattern struct {
	base    string   // folder the rule came from, slash-separated, "" for the root
	segs    []string // the pattern split at "/", "**" matching any number of folders
	neg     bool     // "!pattern"
	dirOnly bool     // "pattern/"
}

// ParseRules parses gitignore text whose patterns apply below base (a
// slash-separated folder relative to the walk root, "" for the root).
// Blank lines and "#" comments are skipped; "\#" and "\!" escape a leading
// "#" or "!"; trailing unescaped spaces are dropped. A pattern with a "/"
// before its end is anchored to base; otherwise it matches a name at any
// depth. A malformed pattern (a bad character class) is an error naming
// its line, and the rest of the text is still used.
func ParseRules(base string, text []byte) (*Rules, error) {
	r := &Rules{}
	var errs []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		if err := r.Add(base, sc.Text()); err != nil {
			errs = append(errs, fmt.Sprintf("line %d: %v", n, err))
		}
	}
	if len(errs) > 0 {
		return r, fmt.Errorf("%w: %s", ErrBadPattern, strings.Join(errs, "; "))
	}
	return r, nil
}

// ErrBadPattern is returned for an ignore or exclude pattern that cannot
// be matched (e.g. an unterminated "[").
var ErrBadPattern = path.ErrBadPattern

// Add appends one pattern line applying below base; a blank line or a
// comment adds nothing.
func (r *Rules) Add(base, line string) error {
	line = trimTrailingSpace(line)
	if line == "" || line[0] == '#' {
		return nil
	}
	p := pattern{base: strings.Trim(base, "/")}
	switch {
	case line[0] == '!':
		p.neg, line = true, line[1:]
	case line[0] == '\\' && len(line) > 1 && (line[1] == '#' || line[1] == '!'):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return nil
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	p.segs = strings.Split(line, "/")
	if !anchored {
		p.segs = append([]string{"**"}, p.segs...)
	}
	for _, s := range p.segs {
		if _, err := path.Match(s, ""); err != nil {
			return fmt.Errorf("%q: %w", line, err)
		}
	}
	r.pats = append(r.pats, p)
	return nil
}

// trimTrailingSpace drops trailing spaces unless escaped with "\".
func trimTrailingSpace(s string) string {
	s = strings.TrimRight(s, "\r")
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\\ ") {
		s = s[:len(s)-1]
	}
	return s
}

// Merge appends o's patterns after r's, so o's win ties.
func (r *Rules) Merge(o *Rules) {
	if o != nil {
		r.pats = append(r.pats, o.pats...)
	}
}

// Match reports whether rel (slash-separated, relative to the walk root)
// is ignored by the patterns themselves; isDir says whether rel is a
// folder. It does not look at rel's parent folders: see Ignored.
func (r *Rules) Match(rel string, isDir bool) bool {
	if r == nil {
		return false
	}
	ignored := false
	for i := range r.pats {
		p := &r.pats[i]
		if p.dirOnly && !isDir {
			continue
		}
		sub, ok := below(p.base, rel)
		if ok && matchSegs(p.segs, strings.Split(sub, "/")) {
			ignored = !p.neg
		}
	}
	return ignored
}

// Ignored reports whether rel is ignored itself or lies in an ignored
// folder (which gitignore never looks into, so no "!" below it counts).
func (r *Rules) Ignored(rel string, isDir bool) bool {
	if r == nil || len(r.pats) == 0 {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if r.Match(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return r.Match(rel, isDir)
}

// below returns rel relative to base when rel lies below it.
func below(base, rel string) (string, bool) {
	if base == "" {
		return rel, rel != ""
	}
	if strings.HasPrefix(rel, base+"/") {
		return rel[len(base)+1:], true
	}
	return "", false
}

// matchSegs matches path segments against pattern segments, "**" standing
// for zero or more segments (one or more when it ends the pattern, so that
// "dir/**" matches what is inside dir, not dir itself).
func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0
			}
			for i := 0; i <= len(name); i++ {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// temporarySuffixes name files that are still being written or belong to
// an editor: partial downloads, swap and temp files.
var temporarySuffixes = []string{".crdownload", ".part", ".partial", ".download", ".swp", ".swx", ".tmp", ".temp", "~"}

// Temporary reports whether a file name looks like a partial download or
// an editor's temporary file (".crdownload", ".part", ".swp", ".tmp",
// "~$report.docx", "#draft#", "file~"), which sync and watch never ingest.
func Temporary(name string) bool {
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "~$") || strings.HasPrefix(lower, ".~lock.") ||
		(strings.HasPrefix(lower, "#") && strings.HasSuffix(lower, "#")) {
		return true
	}
	for _, s := range temporarySuffixes {
		if strings.HasSuffix(lower, s) {
			return true
		}
	}
	return false
}
