package sync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/discover"
	"github.com/mcpvec/mcpvec/store"
)

// FailuresSetting is the store setting that remembers files a sync could
// not read for a lasting reason (ingest.FileError.Lasting), a JSON object keyed by
// path. A file there with the same size and modification time is not read
// again and not counted as failed: it is reported once, then summed up as
// "unreadable as before" until it changes or `sync --retry`.
const FailuresSetting = "sync-failures"

// failure is one remembered file.
type failure struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	Err     string    `json:"error"`
	Since   time.Time `json:"since"`
}

// matches reports whether f is the file the failure was recorded for.
func (r failure) matches(f discover.File) bool {
	return r.Size == f.Size && r.ModTime.Equal(f.ModTime)
}

// loadFailures returns the remembered failures and the setting's bytes;
// none without Options.Settings or with Options.Retry.
func (s *Syncer) loadFailures() (map[string]failure, []byte, error) {
	out := map[string]failure{}
	if s.opts.Settings == nil {
		return out, nil, nil
	}
	b, err := s.opts.Settings.Setting(FailuresSetting)
	if errors.Is(err, store.ErrNotFound) {
		return out, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s setting: %w", FailuresSetting, err)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return map[string]failure{}, b, nil // a damaged memory is forgotten, not fatal
	}
	if s.opts.Retry {
		return map[string]failure{}, b, nil
	}
	return out, b, nil
}

// rememberFailures stores the failures this sync leaves: the known ones
// still unchanged, plus the new lasting failures of planned files. It
// writes nothing when that is what is stored already.
func (s *Syncer) rememberFailures(p *Plan, failed []*ingest.FileError) error {
	if s.opts.Settings == nil {
		return nil
	}
	now := s.now().UTC()
	keep := map[string]failure{}
	for path, r := range p.failures {
		if !p.inRoots(path) { // another sync's folder: not judged here
			keep[path] = r
		}
	}
	for _, k := range p.Unreadable {
		keep[k.File.Path] = k.failure
	}
	planned := p.planned()
	for _, fe := range failed {
		f, ok := planned[fe.Path]
		if !ok || !fe.Lasting() {
			continue
		}
		keep[fe.Path] = failure{Size: f.Size, ModTime: f.ModTime.UTC(), Err: fe.Err.Error(), Since: now}
	}
	b, err := json.Marshal(keep)
	if err != nil {
		return err
	}
	if bytes.Equal(b, p.failuresStored) || (len(keep) == 0 && p.failuresStored == nil) {
		return nil
	}
	return s.opts.Settings.PutSetting(FailuresSetting, b)
}

func (p *Plan) inRoots(path string) bool {
	for _, r := range p.Roots {
		if r.Contains(path) {
			return true
		}
	}
	return false
}

// planned returns the files the plan reads, by path.
func (p *Plan) planned() map[string]discover.File {
	out := map[string]discover.File{}
	for _, it := range slices.Concat(p.Add, p.Update) {
		out[it.File.Path] = it.File
	}
	maps.Copy(out, p.hashFailed)
	return out
}

// Unreadable is a file left alone because an earlier sync could not read
// it and it has not changed since.
type Unreadable struct {
	File discover.File
	failure
}

// Error is the remembered reason.
func (u Unreadable) Error() string { return u.Err }

// Remembered returns the reasons of the lasting failures the syncs on s
// remember, by path (none when there are none or the memory is damaged).
// Errors are the store's.
func Remembered(s Settings) (map[string]string, error) {
	out := map[string]string{}
	b, err := s.Setting(FailuresSetting)
	if errors.Is(err, store.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s setting: %w", FailuresSetting, err)
	}
	var known map[string]failure
	if json.Unmarshal(b, &known) != nil {
		return out, nil
	}
	for path, f := range known {
		out[path] = f.Err
	}
	return out, nil
}
