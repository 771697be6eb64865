package discover

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// makeTree creates files (path -> content) and symlinks (path -> target)
// under a new temporary folder and returns its path.
func makeTree(t *testing.T, files map[string]string, links map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// rels returns the Rel of each file, in order.
func rels(files []File) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Rel)
	}
	return out
}

func TestWalkTree(t *testing.T) {
	root := makeTree(t, map[string]string{
		"a.pdf":           "%PDF",
		"b.txt":           "bee",
		"Z.HTML":          "<p>z</p>",
		"notes.markdown":  "# n",
		"sub/c.md":        "# c",
		"sub/d.exe":       "MZ",
		"sub/deep/e.htm":  "<p>e</p>",
		".git/config":     "[core]",
		".hidden.txt":     "secret",
		"sub/.cache/f.md": "cached",
	}, map[string]string{
		"sub/loop":   "..",             // a loop back to root
		"alias.txt":  "b.txt",          // a second name for b.txt
		"broken.pdf": "does-not-exist", // dangling
	})
	files, skipped, errs := Walk(context.Background(), []string{root}, nil)
	if len(errs) != 0 {
		t.Fatalf("errs = %v", errs)
	}
	want := []string{"Z.HTML", "a.pdf", "b.txt", "notes.markdown", "sub/c.md", "sub/deep/e.htm"}
	if diff := cmp.Diff(want, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for _, f := range files {
		if f.Path != filepath.Join(root, filepath.FromSlash(f.Rel)) {
			t.Errorf("%s: Path %q does not match root + Rel", f.Rel, f.Path)
		}
	}
	if files[1].Size != 4 {
		t.Errorf("a.pdf Size = %d, want 4", files[1].Size)
	}
	wantSkipped := []Skipped{
		{Path: filepath.Join(root, "sub", "d.exe"), Reason: ReasonUnsupported},
		{Path: filepath.Join(root, "broken.pdf"), Reason: ReasonBrokenLink},
	}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

func TestWalkArgs(t *testing.T) {
	root := makeTree(t, map[string]string{
		"docs/one.md":  "1",
		"docs/two.pdf": "2",
		"single.txt":   "s",
		".dot.md":      "hidden but named",
		"image.exe":    "exe",
	}, nil)
	t.Chdir(root)
	args := []string{
		"single.txt",
		"missing.pdf",
		"docs/../docs",  // a folder, not cleaned
		"./docs/one.md", // already listed through the folder
		"docs",          // the same folder again
		".dot.md",       // a hidden file named explicitly is used
		"image.exe",
	}
	files, skipped, errs := Walk(context.Background(), args, nil)
	want := []File{
		{Path: filepath.Join(root, "single.txt"), Rel: "single.txt", Size: 1},
		{Path: filepath.Join(root, "docs", "one.md"), Rel: "one.md", Size: 1},
		{Path: filepath.Join(root, "docs", "two.pdf"), Rel: "two.pdf", Size: 1},
		{Path: filepath.Join(root, ".dot.md"), Rel: ".dot.md", Size: 16},
	}
	if diff := cmp.Diff(want, files, cmpopts.IgnoreFields(File{}, "ModTime"), cmpopts.IgnoreUnexported(File{})); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Skipped{{Path: filepath.Join(root, "image.exe"), Reason: ReasonUnsupported}}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !errors.Is(errs[0], fs.ErrNotExist) || !strings.Contains(errs[0].Error(), "missing.pdf") {
		t.Errorf("errs = %v, want one not-exist error naming missing.pdf", errs)
	}
}

func TestWalkPrefersRealPathOverLink(t *testing.T) {
	root := makeTree(t, map[string]string{"real/x.txt": "x"}, map[string]string{"a-link": "real"})
	files, _, errs := Walk(context.Background(), []string{root}, nil)
	if len(errs) != 0 {
		t.Fatalf("errs = %v", errs)
	}
	if diff := cmp.Diff([]string{"real/x.txt"}, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// A link given as an argument is followed.
	files, _, errs = Walk(context.Background(), []string{filepath.Join(root, "a-link")}, nil)
	if len(errs) != 0 || len(files) != 1 || files[0].Path != filepath.Join(root, "a-link", "x.txt") {
		t.Errorf("walk of a linked folder: files %+v, errs %v", files, errs)
	}
}

func TestWalkCustomSupported(t *testing.T) {
	root := makeTree(t, map[string]string{"a.go": "package a", "b.txt": "b"}, nil)
	onlyGo := func(name string) bool { return strings.HasSuffix(name, ".go") }
	files, skipped, _ := Walk(context.Background(), []string{root}, onlyGo)
	if diff := cmp.Diff([]string{"a.go"}, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(skipped) != 1 || skipped[0].Path != filepath.Join(root, "b.txt") {
		t.Errorf("skipped = %+v, want b.txt", skipped)
	}
}

func TestWalkNotRegular(t *testing.T) {
	root := makeTree(t, nil, nil)
	fifo := filepath.Join(root, "pipe.txt")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("cannot make a fifo here: %v", err)
	}
	_, skipped, errs := Walk(context.Background(), []string{root, fifo}, nil)
	want := []Skipped{{Path: fifo, Reason: ReasonNotRegular}, {Path: fifo, Reason: ReasonNotRegular}}
	if diff := cmp.Diff(want, skipped); diff != "" || len(errs) != 0 {
		t.Errorf("skipped (-want +got):\n%s\nerrs %v", diff, errs)
	}
}

func TestWalkCancelled(t *testing.T) {
	root := makeTree(t, map[string]string{"a.txt": "a", "b/c.txt": "c"}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files, _, errs := Walk(ctx, []string{root, root}, nil)
	if len(files) != 0 {
		t.Errorf("files = %+v after cancel, want none", files)
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("errs = %v, want one context.Canceled", errs)
	}
}

// TestWalkCancelledMidway cancels from the supported callback, i.e. while a
// folder is being walked.
func TestWalkCancelledMidway(t *testing.T) {
	root := makeTree(t, map[string]string{"a/1.txt": "", "a/2.txt": "", "b/3.txt": "", "c.txt": ""}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	stopAfterOne := func(name string) bool {
		calls++
		cancel()
		return true
	}
	files, _, errs := Walk(ctx, []string{root, root}, stopAfterOne)
	if len(files) != 1 || calls != 1 {
		t.Errorf("got %d files after %d calls, want 1 and 1", len(files), calls)
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Errorf("errs = %v, want one context.Canceled", errs)
	}
}

func TestSupported(t *testing.T) {
	for name, want := range map[string]bool{
		"a.pdf": true, "A.PDF": true, "b.txt": true, "c.text": true, "d.md": true, "e.markdown": true,
		"f.html": true, "g.htm": true, "x.xhtml": true, "y.mkd": true, "h.exe": false, "pdf": false, "i.pdf.gz": false, "": false,
	} {
		if got := Supported(name); got != want {
			t.Errorf("Supported(%q) = %v, want %v", name, got, want)
		}
	}
}
