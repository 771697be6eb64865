package sync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/store"
)

// RootsSetting is the store setting that remembers the synced roots, a
// JSON array of Root.
const RootsSetting = "sync-roots"

// Root is one synced folder with the options its files are ingested with.
type Root struct {
	Path      string        `json:"path"` // absolute, cleaned
	URLPrefix string        `json:"url_prefix,omitempty"`
	Chunk     chunk.Options `json:"chunk"`
	Exclude   []string      `json:"exclude,omitempty"`
	// FollowLinks includes symlinks whose target lies outside the folder;
	// by default they are skipped with a line each.
	FollowLinks bool `json:"follow_links,omitempty"`
}

// Contains reports whether path is the root or lies below it.
func (r Root) Contains(path string) bool {
	return under(r.Path, path)
}

func under(dir, path string) bool {
	if path == dir {
		return true
	}
	return len(path) > len(dir) && path[:len(dir)] == dir && (path[len(dir)] == filepath.Separator || dir == string(filepath.Separator))
}

// Settings is where roots are remembered; store.DB implements it.
type Settings interface {
	Setting(name string) ([]byte, error)
	PutSetting(name string, value []byte) error
}

// LoadRoots returns the remembered roots, none when nothing was synced
// yet. Errors are the store's, or a decoding error.
func LoadRoots(s Settings) ([]Root, error) {
	roots, _, err := loadRoots(s)
	return roots, err
}

// loadRoots returns the remembered roots and the setting's bytes (nil when
// there is none).
func loadRoots(s Settings) ([]Root, []byte, error) {
	b, err := s.Setting(RootsSetting)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var roots []Root
	if err := json.Unmarshal(b, &roots); err != nil {
		return nil, nil, fmt.Errorf("decode %s setting: %w", RootsSetting, err)
	}
	return roots, b, nil
}

// Remember adds roots to the remembered ones, replacing the options of a
// root already there, and stores the list sorted by path. When that is
// the list already stored, byte for byte, it writes nothing: a re-sync of
// the same folders with the same options costs no write transaction.
// Errors are the store's, or a decoding error.
func Remember(s Settings, roots []Root) error {
	have, old, err := loadRoots(s)
	if err != nil {
		return err
	}
	for _, r := range roots {
		i := slices.IndexFunc(have, func(h Root) bool { return h.Path == r.Path })
		if i >= 0 {
			have[i] = r
		} else {
			have = append(have, r)
		}
	}
	slices.SortFunc(have, func(a, b Root) int { return strings.Compare(a.Path, b.Path) })
	b, err := json.Marshal(have)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(b, old) {
		return nil
	}
	return s.PutSetting(RootsSetting, b)
}
