package policy

import (
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

// DefaultEvery is how often a List looks at its file by default.
const DefaultEvery = time.Second

// Options configures Open; the zero value is the defaults.
type Options struct {
	// Every is the least time between two looks at the file; 0 means
	// DefaultEvery, a negative value looks on every call (tests).
	Every time.Duration
	// Logger hears reloads and broken edits; nil means slog.Default().
	Logger *slog.Logger
}

// List is an allow-list file that follows the file's edits. It implements
// identity.Policy and is safe for concurrent use.
type List struct {
	path  string
	every time.Duration
	log   *slog.Logger
	next  atomic.Int64 // unix nanoseconds of the next look
	rules atomic.Pointer[Rules]

	mu    sync.Mutex // one look at a time; guards stamp
	stamp stamp
}

// stamp is what a stat tells of a version of the file.
type stamp struct {
	size int64
	mod  time.Time
}

// Open reads the allow-list at path. It returns an error wrapping
// ErrSyntax for a malformed file, or the file system's error: a server
// must not start on rules it cannot read.
func Open(path string, opt Options) (*List, error) {
	l := &List{path: path, every: opt.Every, log: opt.Logger}
	if l.every == 0 {
		l.every = DefaultEvery
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("allow-list: %w", err)
	}
	rs, err := read(path)
	if err != nil {
		return nil, err
	}
	l.rules.Store(&rs)
	l.stamp = stampOf(fi)
	l.next.Store(time.Now().Add(l.every).UnixNano())
	return l, nil
}

func stampOf(fi os.FileInfo) stamp { return stamp{size: fi.Size(), mod: fi.ModTime()} }

func read(path string) (Rules, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("allow-list: %w", err)
	}
	rs, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("allow-list %s: %w", path, err)
	}
	return rs, nil
}

// Path is the file the List follows.
func (l *List) Path() string { return l.path }

// Rules returns the rules in force, after looking at the file when due.
func (l *List) Rules() Rules {
	l.refresh()
	return *l.rules.Load()
}

// Allows implements identity.Policy on the rules in force.
func (l *List) Allows(p identity.Person, library string, r identity.Right) bool {
	if p.IsZero() {
		return true
	}
	return l.Rules().Allows(p, library, r)
}

// refresh looks at the file when due: when its size or modification time
// changed, it is read again; a broken version is logged once and the last
// good rules stay.
func (l *List) refresh() {
	now := time.Now()
	if now.UnixNano() < l.next.Load() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.UnixNano() < l.next.Load() {
		return // another caller just looked
	}
	l.next.Store(now.Add(l.every).UnixNano())
	fi, err := os.Stat(l.path)
	if err != nil {
		if l.stamp != (stamp{}) {
			l.log.Error("allow-list: keeping the last good rules", "path", l.path, "err", err)
			l.stamp = stamp{}
		}
		return
	}
	if st := stampOf(fi); st != l.stamp {
		l.stamp = st
		rs, err := read(l.path)
		if err != nil {
			l.log.Error("allow-list: keeping the last good rules", "err", err)
			return
		}
		l.rules.Store(&rs)
		l.log.Info("allow-list: reloaded", "path", l.path, "rules", len(rs))
	}
}
