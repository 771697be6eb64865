package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxBytes  = 16 << 20
	DefaultKeep      = 10
	DefaultSyncEvery = time.Second
)

// current is the file entries are appended to; rotated files are
// "audit-<time>.jsonl" beside it.
const current = "audit.jsonl"

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("audit log closed")

// Options configures Open; zero fields take the defaults.
type Options struct {
	MaxBytes  int64         // rotate before the file passes this size
	Keep      int           // rotated files kept
	SyncEvery time.Duration // least time between two fsyncs
}

// Log appends entries to an audit directory. It is safe for concurrent use.
type Log struct {
	dir  string
	opt  Options
	mu   sync.Mutex
	f    *os.File
	size int64
	sync time.Time // last fsync
}

// Open opens (creating it, mode 0700) the audit directory dir for
// appending. It returns the file system's error.
func Open(dir string, opt Options) (*Log, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	if opt.Keep <= 0 {
		opt.Keep = DefaultKeep
	}
	if opt.SyncEvery <= 0 {
		opt.SyncEvery = DefaultSyncEvery
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	l := &Log{dir: dir, opt: opt}
	if err := l.openCurrent(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) openCurrent() error {
	f, err := os.OpenFile(filepath.Join(l.dir, current), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	l.f, l.size, l.sync = f, fi.Size(), time.Now()
	return nil
}

// Dir is the directory the Log writes.
func (l *Log) Dir() string { return l.dir }

// Write appends e as one line, rotating first when the file would pass
// MaxBytes. A zero e.Time is now. It returns ErrClosed after Close, or the
// file system's error (the entry is then lost; the caller logs it).
func (l *Log) Write(e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: encode: %w", err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return ErrClosed
	}
	if l.size > 0 && l.size+int64(len(b)) > l.opt.MaxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if time.Since(l.sync) >= l.opt.SyncEvery {
		l.sync = time.Now()
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit: sync: %w", err)
		}
	}
	return nil
}

// rotate syncs and renames the current file, opens a new one and removes
// the oldest rotated files beyond Keep. l.mu is held.
func (l *Log) rotate() error {
	err := errors.Join(l.f.Sync(), l.f.Close())
	l.f = nil
	name := "audit-" + time.Now().UTC().Format("20060102T150405.000000000") + ".jsonl"
	if err == nil {
		err = os.Rename(filepath.Join(l.dir, current), filepath.Join(l.dir, name))
	}
	if err != nil {
		return fmt.Errorf("audit: rotate: %w", errors.Join(err, l.openCurrent()))
	}
	if err := l.openCurrent(); err != nil {
		return err
	}
	old, err := rotated(l.dir)
	for len(old) > l.opt.Keep && err == nil {
		err = os.Remove(filepath.Join(l.dir, old[0]))
		old = old[1:]
	}
	return err
}

// rotated lists the rotated files of dir, oldest first.
func rotated(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var names []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, "audit-") && strings.HasSuffix(n, ".jsonl") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Close syncs and closes the file; later Writes return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := errors.Join(l.f.Sync(), l.f.Close())
	l.f = nil
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}
