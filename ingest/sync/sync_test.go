package sync_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
	"github.com/mcpvec/mcpvec/store"
)

func TestSyncAddModifyDeleteAndUnchanged(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.md", "# Tides\n\nThe moon raises tides twice a day.")
	f.Write(t, "r/sub/b.txt", "Glaciers carve valleys over millennia.")
	f.Write(t, "r/c.txt", "Basalt columns form as lava cools.")
	root := f.Root("r")
	f.WantCounts(t, "first sync", f.Run(t, root), synctest.Counts{Added: 3})
	ex, emb := f.Ex.N.Load(), f.Emb.N.Load()
	f.WantCounts(t, "unchanged sync", f.Run(t, root), synctest.Counts{Unchanged: 3})
	if f.Ex.N.Load() != ex || f.Emb.N.Load() != emb {
		t.Fatal("an unchanged folder was extracted or embedded again")
	}
	f.Write(t, "r/a.md", "# Tides\n\nThe moon and the sun raise tides.")
	os.Remove(f.Path("r/c.txt"))
	sum := f.Run(t, root)
	f.WantCounts(t, "after modify+delete", sum, synctest.Counts{Updated: 1, Removed: 1, Unchanged: 1})
	f.WantSources(t, "r/a.md", "r/sub/b.txt")
	d, _ := f.DB.DocumentByPath(f.Path("r/a.md"))
	if full, _ := f.DB.Document(d.ID); !strings.Contains(full.Text, "the sun") {
		t.Fatalf("stale text after update: %q", full.Text)
	}
	if !strings.Contains(sum.String(), "1 updated, 0 moved, 1 removed, 1 unchanged, 0 failed") {
		t.Fatalf("summary line: %s", sum)
	}
}

func TestSyncTouchedFileIsHashedNotReingested(t *testing.T) {
	f := synctest.MustFixture(t)
	p := f.Write(t, "r/a.txt", "Unchanging words about granite.")
	f.Run(t, f.Root("r"))
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	ex := f.Ex.N.Load()
	f.WantCounts(t, "touched", f.Run(t, f.Root("r")), synctest.Counts{Unchanged: 1})
	if f.Ex.N.Load() != ex {
		t.Fatal("a touched file was extracted again")
	}
	d, _ := f.DB.DocumentByPath(p)
	if !d.ModTime.Equal(later) {
		t.Fatalf("mtime not recorded: %v want %v", d.ModTime, later)
	}
}

func TestSyncRenameAndEditorReplace(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/old name.md", "# Ferns\n\nFerns reproduce with spores.")
	f.Write(t, "r/notes.txt", "Mosses hold water like sponges.")
	root := f.Root("r")
	root.URLPrefix = "https://example.org/d/"
	f.Run(t, root)
	before, _ := f.DB.DocumentByPath(f.Path("r/old name.md"))
	ex, emb := f.Ex.N.Load(), f.Emb.N.Load()
	os.MkdirAll(f.Path("r/plants"), 0o755)
	if err := os.Rename(f.Path("r/old name.md"), f.Path("r/plants/new name.md")); err != nil {
		t.Fatal(err)
	}
	// An editor saves by writing a temporary file and renaming it over the
	// original.
	f.Write(t, "r/.notes.txt.swp", "Mosses hold water like sponges, and peat.")
	os.Rename(f.Path("r/.notes.txt.swp"), f.Path("r/notes.txt"))
	sum := f.Run(t, root)
	f.WantCounts(t, "rename+replace", sum, synctest.Counts{Updated: 1, Moved: 1})
	if f.Ex.N.Load() != ex+1 || f.Emb.N.Load() != emb+1 {
		t.Fatalf("a rename was extracted or embedded: %d extractions, %d passages embedded", f.Ex.N.Load()-ex, f.Emb.N.Load()-emb)
	}
	after, err := f.DB.DocumentByPath(f.Path("r/plants/new name.md"))
	if err != nil {
		t.Fatal(err)
	}
	if after.ID != before.ID || !cmp.Equal(after.Chunks, before.Chunks) {
		t.Fatalf("moved document changed identity or passages: %+v -> %+v", before, after)
	}
	if after.SourceURL != "https://example.org/d/plants/new%20name.md" {
		t.Fatalf("source URL after move = %q", after.SourceURL)
	}
}

func TestSyncMoveBetweenRootsAndOtherRootsLeftAlone(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "one/a.txt", "Pelicans scoop fish with their pouches.")
	f.Write(t, "two/b.txt", "Herons stand still in shallow water.")
	f.Write(t, "elsewhere/c.txt", "Cormorants dry their wings in the sun.")
	f.Run(t, f.Root("one"), f.Root("two"))
	f.Run(t, f.Root("elsewhere"))
	ex := f.Ex.N.Load()
	os.Rename(f.Path("one/a.txt"), f.Path("two/a.txt"))
	os.Remove(f.Path("elsewhere/c.txt")) // not synced below: must stay
	f.WantCounts(t, "move into a root", f.Run(t, f.Root("two")), synctest.Counts{Moved: 1, Unchanged: 1})
	if f.Ex.N.Load() != ex {
		t.Fatal("a move between roots re-extracted the file")
	}
	f.WantSources(t, "elsewhere/c.txt", "two/a.txt", "two/b.txt")
}

func TestSyncFolderDeletedAndRootMissing(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/keep.txt", "Owls hunt at night.")
	f.Write(t, "r/gone/a.txt", "Bats navigate by echo.")
	f.Write(t, "r/gone/deeper/b.txt", "Moths follow the moon.")
	f.Write(t, "s/x.txt", "Larks sing at dawn.")
	f.Run(t, f.Root("r"), f.Root("s"))
	os.RemoveAll(f.Path("r/gone"))
	os.RemoveAll(f.Path("s")) // an unmounted drive looks like this
	sum, err := f.Sync.Run(context.Background(), []isync.Root{f.Root("r"), f.Root("s")})
	if err != nil {
		t.Fatal(err)
	}
	f.WantCounts(t, "sync", sum, synctest.Counts{Removed: 2, Unchanged: 1, Failed: 1})
	if !strings.Contains(f.Report.String(), "documents are kept") {
		t.Fatalf("no clear line for the missing root: %s", f.Report.String())
	}
	f.WantSources(t, "r/keep.txt", "s/x.txt")
}

func TestSyncSymlinkLoopIgnoredAndTemporaryFiles(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.txt", "Coral reefs shelter fish.")
	f.Write(t, "r/.mcpvecignore", "drafts/\n*.private.md\n[broken\n")
	f.Write(t, "r/drafts/d.md", "# Draft")
	f.Write(t, "r/me.private.md", "# Diary")
	f.Write(t, "r/report.pdf.crdownload", "%PDF-1.4 partial")
	f.Write(t, "r/~$report.md", "lock")
	f.Write(t, "r/.hidden/h.md", "# Hidden")
	f.Write(t, "r/skip.md", "# Excluded by flag")
	if err := os.Symlink(f.Path("r"), f.Path("r/loop")); err != nil {
		t.Fatal(err)
	}
	root := f.Root("r")
	root.Exclude = []string{"skip.md"}
	done := make(chan isync.Summary, 1)
	go func() { done <- f.Run(t, root) }()
	select {
	case sum := <-done:
		f.WantCounts(t, "sync", sum, synctest.Counts{Added: 1})
	case <-time.After(30 * time.Second):
		t.Fatal("sync did not finish: symlink loop?")
	}
	f.WantSources(t, "r/a.txt")
	if !strings.Contains(f.Report.String(), "warning parse "+f.Path("r/.mcpvecignore")+": syntax error in pattern: line 3") {
		t.Fatalf("no warning for the malformed ignore line: %s", f.Report.String())
	}
}

func TestSyncPermissionDenied(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/ok.txt", "Sparrows nest under roofs.")
	f.Write(t, "r/locked/secret.txt", "Falcons dive fast.")
	f.Write(t, "r/closed.txt", "Swifts sleep on the wing.")
	f.Run(t, f.Root("r"))
	// A special file that cannot be read like a file: a clear line, the
	// rest continues. This part runs as root too.
	if err := syscall.Mkfifo(f.Path("r/pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Report.Reset()
	if sum := f.Run(t, f.Root("r")); sum.Skipped != 1 || sum.Unchanged != 3 || len(sum.Failed) != 0 {
		t.Fatalf("fifo: %+v", sum)
	}
	if !strings.Contains(f.Report.String(), "skipped "+f.Path("r/pipe.txt")+": not a regular file") {
		t.Fatalf("no clear line for the fifo: %q", f.Report.String())
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not block reads, so a denied folder or file cannot be made")
	}
	os.Chmod(f.Path("r/locked"), 0)
	defer os.Chmod(f.Path("r/locked"), 0o755)
	f.Write(t, "r/closed.txt", "Swifts sleep on the wing, they say.")
	os.Chmod(f.Path("r/closed.txt"), 0)
	defer os.Chmod(f.Path("r/closed.txt"), 0o644)
	f.Write(t, "r/new.txt", "Wrens are small and loud.")
	sum := f.Run(t, f.Root("r"))
	f.WantCounts(t, "sync", sum, synctest.Counts{Added: 1, Unchanged: 1, Failed: 2})
	for _, fe := range sum.Failed {
		if !errors.Is(fe, os.ErrPermission) && !errors.Is(fe, syscall.EACCES) {
			t.Errorf("failure is not a permission error: %v", fe)
		}
	}
	if diff := cmp.Diff([]string{"r/closed.txt", "r/locked/secret.txt", "r/new.txt", "r/ok.txt"}, f.Sources(t)); diff != "" {
		t.Fatalf("documents under a denied path must be kept: %s", diff)
	}
}

func TestSyncSettleLeavesFreshFilesPending(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.txt", "Still being written.")
	now := time.Now()
	opts := f.Opts
	opts.Settle = time.Minute
	opts.Now = func() time.Time { return now }
	s := isync.New(opts)
	sum, err := s.Run(context.Background(), []isync.Root{f.Root("r")})
	if err != nil || sum.Pending != 1 || sum.Added != 0 {
		t.Fatalf("fresh file: %+v %v", sum, err)
	}
	now = now.Add(2 * time.Minute)
	if sum, _ = s.Run(context.Background(), []isync.Root{f.Root("r")}); sum.Added != 1 || sum.Pending != 0 {
		t.Fatalf("settled file: %+v", sum)
	}
}

func TestSyncDryRunChangesNothing(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.txt", "Tulips open in the sun.")
	f.Run(t, f.Root("r"))
	os.Rename(f.Path("r/a.txt"), f.Path("r/b.txt"))
	f.Write(t, "r/c.txt", "Crocus flowers in early spring.")
	p, err := f.Sync.Plan(context.Background(), []isync.Root{f.Root("r")})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	p.Print(&out)
	for _, want := range []string{"add     " + f.Path("r/c.txt"), "move    " + f.Path("r/a.txt") + " -> " + f.Path("r/b.txt"), "plan: 1 to add, 0 to update, 1 to move, 0 to remove"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
	f.WantSources(t, "r/a.txt")
}

func TestRememberRoots(t *testing.T) {
	f := synctest.MustFixture(t)
	if roots, err := isync.LoadRoots(f.DB); err != nil || roots != nil {
		t.Fatalf("fresh library: %v %v", roots, err)
	}
	a, b := f.Root("b"), f.Root("a")
	isync.Remember(f.DB, []isync.Root{a, b})
	a.URLPrefix = "https://x/"
	isync.Remember(f.DB, []isync.Root{a})
	roots, err := isync.LoadRoots(f.DB)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]isync.Root{b, a}, roots); diff != "" {
		t.Fatal(diff)
	}
	if _, err := isync.New(f.Opts).Run(context.Background(), nil); !errors.Is(err, isync.ErrNoRoots) {
		t.Fatalf("no roots: %v", err)
	}
	if _, err := f.DB.Setting(isync.RootsSetting); errors.Is(err, store.ErrNotFound) {
		t.Fatal("roots not stored as a setting")
	}
}

// TestRememberSameRootsWritesNothing: remembering the roots already
// remembered, with the same options, begins no write transaction; a
// changed option is still stored.
func TestRememberSameRootsWritesNothing(t *testing.T) {
	f := synctest.MustFixture(t)
	a, b := f.Root("a"), f.Root("b")
	if err := isync.Remember(f.DB, []isync.Root{a, b}); err != nil {
		t.Fatal(err)
	}
	before := f.DB.WriteStats()
	for _, roots := range [][]isync.Root{{a, b}, {b}, {a}} {
		if err := isync.Remember(f.DB, roots); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.DB.WriteStats(); got != before {
		t.Errorf("remembering the same roots: write transactions %+v, were %+v", got, before)
	}
	a.Exclude = []string{"*.tmp"}
	if err := isync.Remember(f.DB, []isync.Root{a}); err != nil {
		t.Fatal(err)
	}
	if got, want := f.DB.WriteStats().Committed, before.Committed+1; got != want {
		t.Errorf("a changed option: %d commits, want %d", got, want)
	}
	if roots, err := isync.LoadRoots(f.DB); err != nil || len(roots) != 2 || len(roots[0].Exclude) != 1 {
		t.Errorf("remembered %+v, %v", roots, err)
	}
}

func TestSyncSwappedAndDuplicatedContent(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.txt", "Alpha text about anchors and sails.")
	f.Write(t, "r/b.txt", "Bravo text about buoys and tides.")
	f.Write(t, "r/c.txt", "Charlie text about compasses.")
	f.Run(t, f.Root("r"))
	// Swap a and b by renames, and make c a copy of a's new content.
	os.Rename(f.Path("r/a.txt"), f.Path("r/tmp"))
	os.Rename(f.Path("r/b.txt"), f.Path("r/a.txt"))
	os.Rename(f.Path("r/tmp"), f.Path("r/b.txt"))
	f.Write(t, "r/c.txt", "Bravo text about buoys and tides.")
	f.Write(t, "r/copy.txt", "Bravo text about buoys and tides.")
	sum := f.Run(t, f.Root("r"))
	if len(sum.Failed) != 0 || sum.Duplicates != 2 {
		t.Fatalf("swap+duplicates: %+v\n%s", sum, f.Report.String())
	}
	for rel, want := range map[string]string{"r/a.txt": "Bravo", "r/b.txt": "Alpha"} {
		d, err := f.DB.DocumentByPath(f.Path(rel))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if full, _ := f.DB.Document(d.ID); !strings.HasPrefix(full.Text, want) {
			t.Fatalf("%s holds %q, want %s…", rel, full.Text, want)
		}
	}
	// c and copy duplicate a: no stale Charlie document stays behind.
	if diff := cmp.Diff([]string{"r/a.txt", "r/b.txt"}, f.Sources(t)); diff != "" {
		t.Fatalf("%s\n%s", diff, f.Report.String())
	}
	if !strings.Contains(f.Report.String(), "duplicate "+f.Path("r/copy.txt")+": same content as "+f.Path("r/a.txt")) {
		t.Fatalf("no duplicate line: %s", f.Report.String())
	}
}

func TestSyncNestedRootsJudgeAFileOnce(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.txt", "Outer file about oars.")
	f.Write(t, "r/inner/b.txt", "Inner file about keels.")
	root, inner := f.Root("r"), f.Root("r/inner")
	f.WantCounts(t, "sync", f.Run(t, root, inner, root), synctest.Counts{Added: 2})
	f.WantCounts(t, "re-sync", f.Run(t, inner, root), synctest.Counts{Unchanged: 2})
}
