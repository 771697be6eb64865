//go:build unix

package sync_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/discover"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
)

// TestSyncReadsOnlyWhatItPlanned swaps listed files, between the plan and
// its application, for a link to /dev/zero (the red team's read that never
// stopped: 3 GB in 7.9 s) and a FIFO (which hung the watcher and every
// forwarded sync). Apply must finish promptly, ingest neither, and keep
// the rest.
func TestSyncReadsOnlyWhatItPlanned(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/zero.txt", "Soon a link to an endless device.")
	f.Write(t, "r/fifo.txt", "Soon a named pipe nobody writes to.")
	f.Write(t, "r/ok.txt", "Plain notes that stay.")
	p, err := f.Sync.Plan(context.Background(), []isync.Root{f.Root("r")})
	if err != nil || len(p.Add) != 3 {
		t.Fatalf("plan: %d to add, %v", len(p.Add), err)
	}
	os.Remove(f.Path("r/zero.txt"))
	if err := os.Symlink("/dev/zero", f.Path("r/zero.txt")); err != nil {
		t.Fatal(err)
	}
	os.Remove(f.Path("r/fifo.txt"))
	if err := syscall.Mkfifo(f.Path("r/fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	sum, err := f.Sync.Apply(ctx, p)
	if err != nil {
		t.Fatalf("apply: %v after %s", err, time.Since(start))
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("apply took %s", took)
	}
	f.WantSources(t, "r/ok.txt")
	if len(sum.Failed) != 2 {
		t.Fatalf("failed = %v, want the two swapped files", sum.Failed)
	}
}

// TestSyncSkipsLinksOutOfTheFolder: a synced folder's notes.txt that links
// to a private key stays out of the library unless the root follows links.
func TestSyncSkipsLinksOutOfTheFolder(t *testing.T) {
	f := synctest.MustFixture(t)
	secret := f.Write(t, "home/.ssh/id_rsa.txt", "-----BEGIN PRIVATE KEY----- not for the library")
	f.Write(t, "r/own.txt", "The folder's own notes.")
	if err := os.Symlink(secret, f.Path("r/notes.txt")); err != nil {
		t.Fatal(err)
	}
	report := &synctest.Buffer{}
	opts := f.Opts
	opts.Report = report
	sum, err := isync.New(opts).Run(context.Background(), []isync.Root{f.Root("r")})
	if err != nil {
		t.Fatal(err)
	}
	f.WantCounts(t, "default", sum, synctest.Counts{Added: 1})
	f.WantSources(t, "r/own.txt")
	if want := "skipped " + f.Path("r/notes.txt") + ": " + discover.ReasonOutsideLink; !strings.Contains(report.String(), want) {
		t.Fatalf("report %q lacks %q", report.String(), want)
	}
	root := f.Root("r")
	root.FollowLinks = true
	f.WantCounts(t, "--follow-links", f.Run(t, root), synctest.Counts{Added: 1, Unchanged: 1})
	f.WantSources(t, "r/notes.txt", "r/own.txt")
}

// TestSyncRemembersUnreadableFiles: a file that can never be read fails
// the first sync, once; later syncs leave it alone and do not fail (the
// red team: `mcpvec sync` exited 1 on every run) until it changes or the
// sync is told to retry.
func TestSyncRemembersUnreadableFiles(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/ok.txt", "Readable notes.")
	bad := f.Write(t, "r/broken.pdf", "%PDF-1.7 this is no PDF at all, only its first line")
	opts := f.Opts
	opts.Settings = f.DB
	s := isync.New(opts)
	run := func(s *isync.Syncer) isync.Summary {
		t.Helper()
		sum, err := s.Run(context.Background(), []isync.Root{f.Root("r")})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	first := run(s)
	if len(first.Failed) != 1 || first.Added != 1 {
		t.Fatalf("first sync: %+v", first)
	}
	ex := f.Ex.N.Load()
	second := run(s)
	if len(second.Failed) != 0 || second.Unreadable != 1 || f.Ex.N.Load() != ex {
		t.Fatalf("second sync: failed %v, unreadable %d, extracted again: %v", second.Failed, second.Unreadable, f.Ex.N.Load() != ex)
	}
	if !strings.Contains(second.String(), "1 unreadable as before") {
		t.Fatalf("summary: %s", second)
	}
	retry := opts
	retry.Retry = true
	if sum := run(isync.New(retry)); len(sum.Failed) != 1 {
		t.Fatalf("--retry: %+v", sum)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(bad, later, later)
	if sum := run(s); len(sum.Failed) != 1 {
		t.Fatalf("after the file changed: %+v, want it read (and failing) again", sum)
	}
	os.Remove(bad)
	run(s)
	if b, err := f.DB.Setting(isync.FailuresSetting); err != nil || string(b) != "{}" {
		t.Fatalf("remembered after the file is gone: %s, %v", b, err)
	}
}
