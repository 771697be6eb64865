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
	"github.com/mcpvec/mcpvec/store"
)

func TestSyncAddModifyDeleteAndUnchanged(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/a.md", "# Tides\n\nThe moon raises tides twice a day.")
	f.write(t, "r/sub/b.txt", "Glaciers carve valleys over millennia.")
	f.write(t, "r/c.txt", "Basalt columns form as lava cools.")
	root := f.root("r")
	if got, want := countsOf(f.run(t, root)), (counts{Added: 3}); got != want {
		t.Fatalf("first sync = %+v, want %+v", got, want)
	}
	ex, emb := f.ex.n.Load(), f.emb.n.Load()
	if got, want := countsOf(f.run(t, root)), (counts{Unchanged: 3}); got != want {
		t.Fatalf("unchanged sync = %+v, want %+v", got, want)
	}
	if f.ex.n.Load() != ex || f.emb.n.Load() != emb {
		t.Fatal("an unchanged folder was extracted or embedded again")
	}
	f.write(t, "r/a.md", "# Tides\n\nThe moon and the sun raise tides.")
	os.Remove(f.path("r/c.txt"))
	sum := f.run(t, root)
	if got, want := countsOf(sum), (counts{Updated: 1, Removed: 1, Unchanged: 1}); got != want {
		t.Fatalf("after modify+delete = %+v, want %+v\n%s", got, want, f.rep.String())
	}
	if diff := cmp.Diff([]string{"r/a.md", "r/sub/b.txt"}, f.sources(t)); diff != "" {
		t.Fatal(diff)
	}
	d, _ := f.db.DocumentByPath(f.path("r/a.md"))
	if full, _ := f.db.Document(d.ID); !strings.Contains(full.Text, "the sun") {
		t.Fatalf("stale text after update: %q", full.Text)
	}
	if !strings.Contains(sum.String(), "1 updated, 0 moved, 1 removed, 1 unchanged, 0 failed") {
		t.Fatalf("summary line: %s", sum)
	}
}

func TestSyncTouchedFileIsHashedNotReingested(t *testing.T) {
	f := MustFixture(t)
	p := f.write(t, "r/a.txt", "Unchanging words about granite.")
	f.run(t, f.root("r"))
	later := time.Now().Add(time.Hour)
	os.Chtimes(p, later, later)
	ex := f.ex.n.Load()
	if got, want := countsOf(f.run(t, f.root("r"))), (counts{Unchanged: 1}); got != want {
		t.Fatalf("touched = %+v, want %+v", got, want)
	}
	if f.ex.n.Load() != ex {
		t.Fatal("a touched file was extracted again")
	}
	d, _ := f.db.DocumentByPath(p)
	if !d.ModTime.Equal(later) {
		t.Fatalf("mtime not recorded: %v want %v", d.ModTime, later)
	}
}

func TestSyncRenameAndEditorReplace(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/old name.md", "# Ferns\n\nFerns reproduce with spores.")
	f.write(t, "r/notes.txt", "Mosses hold water like sponges.")
	root := f.root("r")
	root.URLPrefix = "https://example.org/d/"
	f.run(t, root)
	before, _ := f.db.DocumentByPath(f.path("r/old name.md"))
	ex, emb := f.ex.n.Load(), f.emb.n.Load()
	os.MkdirAll(f.path("r/plants"), 0o755)
	if err := os.Rename(f.path("r/old name.md"), f.path("r/plants/new name.md")); err != nil {
		t.Fatal(err)
	}
	// An editor saves by writing a temporary file and renaming it over the
	// original.
	f.write(t, "r/.notes.txt.swp", "Mosses hold water like sponges, and peat.")
	os.Rename(f.path("r/.notes.txt.swp"), f.path("r/notes.txt"))
	sum := f.run(t, root)
	if got, want := countsOf(sum), (counts{Updated: 1, Moved: 1}); got != want {
		t.Fatalf("rename+replace = %+v, want %+v\n%s", got, want, f.rep.String())
	}
	if f.ex.n.Load() != ex+1 || f.emb.n.Load() != emb+1 {
		t.Fatalf("a rename was extracted or embedded: %d extractions, %d passages embedded", f.ex.n.Load()-ex, f.emb.n.Load()-emb)
	}
	after, err := f.db.DocumentByPath(f.path("r/plants/new name.md"))
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
	f := MustFixture(t)
	f.write(t, "one/a.txt", "Pelicans scoop fish with their pouches.")
	f.write(t, "two/b.txt", "Herons stand still in shallow water.")
	f.write(t, "elsewhere/c.txt", "Cormorants dry their wings in the sun.")
	f.run(t, f.root("one"), f.root("two"))
	f.run(t, f.root("elsewhere"))
	ex := f.ex.n.Load()
	os.Rename(f.path("one/a.txt"), f.path("two/a.txt"))
	os.Remove(f.path("elsewhere/c.txt")) // not synced below: must stay
	if got, want := countsOf(f.run(t, f.root("two"))), (counts{Moved: 1, Unchanged: 1}); got != want {
		t.Fatalf("move into a root = %+v, want %+v", got, want)
	}
	if f.ex.n.Load() != ex {
		t.Fatal("a move between roots re-extracted the file")
	}
	if diff := cmp.Diff([]string{"elsewhere/c.txt", "two/a.txt", "two/b.txt"}, f.sources(t)); diff != "" {
		t.Fatal(diff)
	}
}

func TestSyncFolderDeletedAndRootMissing(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/keep.txt", "Owls hunt at night.")
	f.write(t, "r/gone/a.txt", "Bats navigate by echo.")
	f.write(t, "r/gone/deeper/b.txt", "Moths follow the moon.")
	f.write(t, "s/x.txt", "Larks sing at dawn.")
	f.run(t, f.root("r"), f.root("s"))
	os.RemoveAll(f.path("r/gone"))
	os.RemoveAll(f.path("s")) // an unmounted drive looks like this
	sum, err := f.sync.Run(context.Background(), []isync.Root{f.root("r"), f.root("s")})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := countsOf(sum), (counts{Removed: 2, Unchanged: 1, Failed: 1}); got != want {
		t.Fatalf("= %+v, want %+v\n%s", got, want, f.rep.String())
	}
	if !strings.Contains(f.rep.String(), "documents are kept") {
		t.Fatalf("no clear line for the missing root: %s", f.rep.String())
	}
	if diff := cmp.Diff([]string{"r/keep.txt", "s/x.txt"}, f.sources(t)); diff != "" {
		t.Fatal(diff)
	}
}

func TestSyncSymlinkLoopIgnoredAndTemporaryFiles(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/a.txt", "Coral reefs shelter fish.")
	f.write(t, "r/.mcpvecignore", "drafts/\n*.private.md\n")
	f.write(t, "r/drafts/d.md", "# Draft")
	f.write(t, "r/me.private.md", "# Diary")
	f.write(t, "r/report.pdf.crdownload", "%PDF-1.4 partial")
	f.write(t, "r/~$report.md", "lock")
	f.write(t, "r/.hidden/h.md", "# Hidden")
	f.write(t, "r/skip.md", "# Excluded by flag")
	if err := os.Symlink(f.path("r"), f.path("r/loop")); err != nil {
		t.Fatal(err)
	}
	root := f.root("r")
	root.Exclude = []string{"skip.md"}
	done := make(chan isync.Summary, 1)
	go func() { done <- f.run(t, root) }()
	select {
	case sum := <-done:
		if got, want := countsOf(sum), (counts{Added: 1}); got != want {
			t.Fatalf("= %+v, want %+v\n%s", got, want, f.rep.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sync did not finish: symlink loop?")
	}
	if diff := cmp.Diff([]string{"r/a.txt"}, f.sources(t)); diff != "" {
		t.Fatal(diff)
	}
}

func TestSyncPermissionDenied(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/ok.txt", "Sparrows nest under roofs.")
	f.write(t, "r/locked/secret.txt", "Falcons dive fast.")
	f.write(t, "r/closed.txt", "Swifts sleep on the wing.")
	f.run(t, f.root("r"))
	// A special file that cannot be read like a file: a clear line, the
	// rest continues. This part runs as root too.
	if err := syscall.Mkfifo(f.path("r/pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.rep.Reset()
	if sum := f.run(t, f.root("r")); sum.Skipped != 1 || sum.Unchanged != 3 || len(sum.Failed) != 0 {
		t.Fatalf("fifo: %+v", sum)
	}
	if !strings.Contains(f.rep.String(), "skipped "+f.path("r/pipe.txt")+": not a regular file") {
		t.Fatalf("no clear line for the fifo: %q", f.rep.String())
	}
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not block reads, so a denied folder or file cannot be made")
	}
	os.Chmod(f.path("r/locked"), 0)
	defer os.Chmod(f.path("r/locked"), 0o755)
	f.write(t, "r/closed.txt", "Swifts sleep on the wing, they say.")
	os.Chmod(f.path("r/closed.txt"), 0)
	defer os.Chmod(f.path("r/closed.txt"), 0o644)
	f.write(t, "r/new.txt", "Wrens are small and loud.")
	sum := f.run(t, f.root("r"))
	if got, want := countsOf(sum), (counts{Added: 1, Unchanged: 1, Failed: 2}); got != want {
		t.Fatalf("= %+v, want %+v\n%s", got, want, f.rep.String())
	}
	for _, fe := range sum.Failed {
		if !errors.Is(fe, os.ErrPermission) && !errors.Is(fe, syscall.EACCES) {
			t.Errorf("failure is not a permission error: %v", fe)
		}
	}
	if diff := cmp.Diff([]string{"r/closed.txt", "r/locked/secret.txt", "r/new.txt", "r/ok.txt"}, f.sources(t)); diff != "" {
		t.Fatalf("documents under a denied path must be kept: %s", diff)
	}
}

func TestSyncSettleLeavesFreshFilesPending(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/a.txt", "Still being written.")
	now := time.Now()
	opts := f.opts
	opts.Settle = time.Minute
	opts.Now = func() time.Time { return now }
	s := isync.New(opts)
	sum, err := s.Run(context.Background(), []isync.Root{f.root("r")})
	if err != nil || sum.Pending != 1 || sum.Added != 0 {
		t.Fatalf("fresh file: %+v %v", sum, err)
	}
	now = now.Add(2 * time.Minute)
	if sum, _ = s.Run(context.Background(), []isync.Root{f.root("r")}); sum.Added != 1 || sum.Pending != 0 {
		t.Fatalf("settled file: %+v", sum)
	}
}

func TestSyncDryRunChangesNothing(t *testing.T) {
	f := MustFixture(t)
	f.write(t, "r/a.txt", "Tulips open in the sun.")
	f.run(t, f.root("r"))
	os.Rename(f.path("r/a.txt"), f.path("r/b.txt"))
	f.write(t, "r/c.txt", "Crocus flowers in early spring.")
	p, err := f.sync.Plan(context.Background(), []isync.Root{f.root("r")})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	p.Print(&out)
	for _, want := range []string{"add     " + f.path("r/c.txt"), "move    " + f.path("r/a.txt") + " -> " + f.path("r/b.txt"), "plan: 1 to add, 0 to update, 1 to move, 0 to remove"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, out.String())
		}
	}
	if diff := cmp.Diff([]string{"r/a.txt"}, f.sources(t)); diff != "" {
		t.Fatal(diff)
	}
}

func TestRememberRoots(t *testing.T) {
	f := MustFixture(t)
	if roots, err := isync.LoadRoots(f.db); err != nil || roots != nil {
		t.Fatalf("fresh library: %v %v", roots, err)
	}
	a, b := f.root("b"), f.root("a")
	isync.Remember(f.db, []isync.Root{a, b})
	a.URLPrefix = "https://x/"
	isync.Remember(f.db, []isync.Root{a})
	roots, err := isync.LoadRoots(f.db)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]isync.Root{b, a}, roots); diff != "" {
		t.Fatal(diff)
	}
	if _, err := isync.New(f.opts).Run(context.Background(), nil); !errors.Is(err, isync.ErrNoRoots) {
		t.Fatalf("no roots: %v", err)
	}
	if _, err := f.db.Setting(isync.RootsSetting); errors.Is(err, store.ErrNotFound) {
		t.Fatal("roots not stored as a setting")
	}
}
