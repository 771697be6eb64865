package discover

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// listOne walks dir and returns its one file.
func listOne(t *testing.T, dir string) File {
	t.Helper()
	files, _, errs := Walk(context.Background(), []string{dir}, nil)
	if len(errs) != 0 || len(files) != 1 {
		t.Fatalf("walk: %d files, errors %v", len(files), errs)
	}
	return files[0]
}

func TestReadReadsTheListedFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("listed content"), 0o644)
	f := listOne(t, dir)
	got, err := f.Read()
	if err != nil || string(got) != "listed content" {
		t.Fatalf("Read = %q, %v", got, err)
	}
}

// TestReadRefusesWhatTheFileBecame swaps a listed file, before it is read,
// for what the red team used: a link to /dev/zero (read for ever), a FIFO
// (open blocks for ever), a longer file and another file of the same size.
func TestReadRefusesWhatTheFileBecame(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	swaps := map[string]struct {
		swap func(path string) error
		want error
	}{
		"link to /dev/zero": {func(p string) error { os.Remove(p); return os.Symlink("/dev/zero", p) }, ErrChanged},
		"fifo":              {func(p string) error { os.Remove(p); return mkfifo(p) }, ErrNotRegular},
		"grown":             {func(p string) error { return os.WriteFile(p, []byte("listed content, and then much more"), 0o644) }, ErrChanged},
		"replaced": {func(p string) error {
			tmp := p + ".new"
			os.WriteFile(tmp, []byte("other  content"), 0o644)
			return os.Rename(tmp, p)
		}, ErrChanged},
	}
	for name, c := range swaps {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "a.txt")
			os.WriteFile(p, []byte("listed content"), 0o644)
			f := listOne(t, dir)
			if err := c.swap(p); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, err := f.Read(); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, c.want) {
					t.Fatalf("Read = %v, want %v", err, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read still runs after 5 s")
			}
		})
	}
}

func TestLinksOutOfTheFolderAreSkippedWhenAsked(t *testing.T) {
	root, secret := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(secret, "id_rsa.txt"), []byte("PRIVATE KEY"), 0o600)
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "own.txt"), []byte("own"), 0o644)
	os.Symlink(filepath.Join(secret, "id_rsa.txt"), filepath.Join(root, "notes.txt"))
	os.Symlink(secret, filepath.Join(root, "keys"))
	os.Symlink(filepath.Join(root, "sub", "own.txt"), filepath.Join(root, "inside.txt"))
	files, skipped, errs := WalkWith(context.Background(), []string{root}, &Options{NoOutsideLinks: true})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Rel)
	}
	if len(got) != 1 || got[0] != "sub/own.txt" {
		t.Fatalf("files = %v, want only sub/own.txt (inside.txt is the same file)", got)
	}
	outside := 0
	for _, s := range skipped {
		if s.Reason == ReasonOutsideLink {
			outside++
		}
	}
	if outside != 2 {
		t.Fatalf("skipped %v, want notes.txt and keys as links out of the folder", skipped)
	}
	files, _, _ = WalkWith(context.Background(), []string{root}, &Options{})
	if len(files) != 2 || files[1].Rel != "keys/id_rsa.txt" { // notes.txt is the same file, listed once
		t.Fatalf("without NoOutsideLinks: %+v, want sub/own.txt and the key through keys/", files)
	}
}
