package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Filter picks entries; zero fields pick all.
type Filter struct {
	// User matches an entry's User (case-insensitively) or Key.
	User string
	// Since drops entries before it.
	Since time.Time
	// Library matches an entry's Library.
	Library string
}

func (f Filter) keep(e *Entry) bool {
	switch {
	case f.User != "" && !strings.EqualFold(f.User, e.User) && f.User != e.Key:
		return false
	case f.Library != "" && f.Library != e.Library:
		return false
	}
	return f.Since.IsZero() || !e.Time.Before(f.Since)
}

// Read returns the entries of the audit directory dir that f keeps,
// oldest first: the rotated files, then the current one. A directory that
// does not exist holds no entries. Lines that do not decode (a line torn
// by a power cut) are skipped. It returns the file system's error. It is
// safe to call while a Log writes dir.
func Read(dir string, f Filter) ([]Entry, error) {
	names, err := rotated(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, n := range append(names, current) {
		if out, err = readFile(filepath.Join(dir, n), f, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func readFile(path string, f Filter, out []Entry) ([]Entry, error) {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil // rotated away meanwhile, or nothing written yet
	}
	if err != nil {
		return out, fmt.Errorf("audit: %w", err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && f.keep(&e) {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("audit: read %s: %w", path, err)
	}
	return out, nil
}
