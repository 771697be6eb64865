package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	isync "github.com/mcpvec/mcpvec/ingest/sync"
	"github.com/mcpvec/mcpvec/ingest/sync/synctest"
)

// fakeNotifier delivers only what a test sends.
type fakeNotifier struct {
	events chan fsnotify.Event
	errs   chan error
}

func newFake() *fakeNotifier {
	return &fakeNotifier{events: make(chan fsnotify.Event), errs: make(chan error)}
}

func (f *fakeNotifier) Add(string) error              { return nil }
func (f *fakeNotifier) Events() <-chan fsnotify.Event { return f.events }
func (f *fakeNotifier) Errors() <-chan error          { return f.errs }
func (f *fakeNotifier) Close() error                  { return nil }

// startWatch runs a watcher over root "r" of the fixture until the test
// ends; syncs is signalled after every sync.
func startWatch(t *testing.T, f *synctest.Fixture, o Options) (syncs chan isync.Summary) {
	t.Helper()
	opts := f.Opts
	opts.Settle = o.Quiet
	s := isync.New(opts)
	syncs = make(chan isync.Summary, 100)
	o.Roots = []isync.Root{f.Root("r")}
	o.Sync = s.Run
	o.OnSync = func(sum isync.Summary, err error) {
		if err != nil && !errors.Is(err, context.Canceled) { // the test ending mid-sync
			t.Errorf("sync: %v", err)
		}
		select {
		case syncs <- sum:
		default:
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-syncs: // the initial sync
	case <-time.After(20 * time.Second):
		t.Fatal("no initial sync")
	}
	return syncs
}

// waitFor polls cond until it holds or the bounded wait ends.
func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 20*time.Second {
		if cond() {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
	return 0
}

func text(f *synctest.Fixture, rel string) string {
	d, err := f.DB.DocumentByPath(f.Path(rel))
	if err != nil {
		return ""
	}
	full, err := f.DB.Document(d.ID)
	if err != nil {
		return ""
	}
	return full.Text
}

func TestWatchAddModifyReplaceDeleteNewFolderSymlinkLoop(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/a.txt", "Kelp forests sway in cold water.")
	old := time.Now().Add(-time.Hour) // settled before the server started
	os.Chtimes(f.Path("r/a.txt"), old, old)
	if err := os.Symlink(f.Path("r"), f.Path("r/loop")); err != nil { // must not be followed forever
		t.Fatal(err)
	}
	startWatch(t, f, Options{Quiet: 100 * time.Millisecond, Rescan: -1})
	if text(f, "r/a.txt") == "" {
		t.Fatal("the initial sync did not ingest the folder")
	}
	f.Write(t, "r/b.txt", "Sea otters crack shells on rocks.")
	took := waitFor(t, "a new file", func() bool { return text(f, "r/b.txt") != "" })
	t.Logf("new file searchable after %s", took)
	f.Write(t, "r/a.txt", "Kelp forests sway in cold, bright water.")
	waitFor(t, "a modified file", func() bool { return strings.Contains(text(f, "r/a.txt"), "bright") })
	f.Write(t, "r/.b.txt.tmp~", "Sea otters crack shells on their bellies.")
	if err := os.Rename(f.Path("r/.b.txt.tmp~"), f.Path("r/b.txt")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "an editor's replace", func() bool { return strings.Contains(text(f, "r/b.txt"), "bellies") })
	os.Remove(f.Path("r/a.txt"))
	waitFor(t, "a deleted file", func() bool { return text(f, "r/a.txt") == "" })
	f.Write(t, "r/new/deeper/c.txt", "Urchins graze on kelp.")
	waitFor(t, "a file in a new folder", func() bool { return text(f, "r/new/deeper/c.txt") != "" })
	f.Write(t, "r/new/deeper/d.txt", "Sunflower stars eat urchins.")
	waitFor(t, "a second file in the new folder", func() bool { return text(f, "r/new/deeper/d.txt") != "" })
}

func TestWatchGrowingFileIngestedOnceComplete(t *testing.T) {
	f := synctest.MustFixture(t)
	os.MkdirAll(f.Path("r"), 0o755)
	const quiet = 750 * time.Millisecond // well above a writer stalled by a loaded machine
	startWatch(t, f, Options{Quiet: quiet, Rescan: -1})
	p := f.Path("r/growing.txt")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range 25 {
		line := fmt.Sprintf("Line %d of a download that arrives slowly. ", i)
		want.WriteString(line)
		w.WriteString(line)
		time.Sleep(20 * time.Millisecond)
	}
	w.Close()
	waitFor(t, "the grown file", func() bool { return text(f, "r/growing.txt") != "" })
	time.Sleep(3 * quiet) // any second ingest would happen now
	f.Ex.Mu.Lock()
	seen := append([]string(nil), f.Ex.Seen[p]...)
	f.Ex.Mu.Unlock()
	if len(seen) != 1 || seen[0] != want.String() {
		t.Fatalf("extracted %d times, want once and complete: %q", len(seen), seen)
	}
}

func TestWatchOverflowFallsBackToRescan(t *testing.T) {
	f := synctest.MustFixture(t)
	os.MkdirAll(f.Path("r"), 0o755)
	fake := newFake()
	// Events would take an hour to settle and there is no periodic rescan:
	// only the overflow can bring the new file in.
	syncs := startWatch(t, f, Options{Quiet: time.Hour, Rescan: -1, notifier: func() (notifier, error) { return fake, nil }})
	f.Write(t, "r/lost.txt", "An event for this file was dropped.")
	// Settle is the quiet period: make the file old enough to be taken.
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(f.Path("r/lost.txt"), old, old)
	fake.errs <- fmt.Errorf("inotify: %w", fsnotify.ErrEventOverflow)
	select {
	case sum := <-syncs:
		if sum.Added != 1 {
			t.Fatalf("rescan after overflow: %+v", sum)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no rescan after an overflow")
	}
	if text(f, "r/lost.txt") == "" {
		t.Fatal("the file missed by the notifier is not in the library")
	}
}

func TestWatchPeriodicRescanCatchesSilentChanges(t *testing.T) {
	f := synctest.MustFixture(t)
	os.MkdirAll(f.Path("r"), 0o755)
	fake := newFake() // a network mount: no events at all
	startWatch(t, f, Options{Quiet: 50 * time.Millisecond, Rescan: 200 * time.Millisecond,
		notifier: func() (notifier, error) { return fake, nil }})
	f.Write(t, "r/silent.txt", "Written on another machine.")
	waitFor(t, "the rescan", func() bool { return text(f, "r/silent.txt") != "" })
}

func TestWatchNoRoots(t *testing.T) {
	if err := Run(context.Background(), Options{}); !errors.Is(err, ErrNoRoots) {
		t.Fatalf("err = %v", err)
	}
}

func TestWatchReloadPicksUpNewRoots(t *testing.T) {
	f := synctest.MustFixture(t)
	os.MkdirAll(f.Path("r"), 0o755)
	f.Write(t, "later/x.txt", "A folder synced after the server started.")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(f.Path("later/x.txt"), old, old)
	startWatch(t, f, Options{Quiet: 20 * time.Millisecond, Rescan: 100 * time.Millisecond,
		Reload: func() ([]isync.Root, error) { return []isync.Root{f.Root("r"), f.Root("later")}, nil }})
	waitFor(t, "the reloaded root", func() bool { return text(f, "later/x.txt") != "" })
}

func TestWatchIgnoredAndTemporaryFilesStayOut(t *testing.T) {
	f := synctest.MustFixture(t)
	f.Write(t, "r/.mcpvecignore", "secret/\n")
	startWatch(t, f, Options{Quiet: 50 * time.Millisecond, Rescan: -1})
	f.Write(t, "r/secret/x.txt", "Private notes that must not be indexed.")
	f.Write(t, "r/report.pdf.crdownload", "%PDF-1.4 half a download")
	f.Write(t, "r/~$draft.txt", "an office lock file")
	time.Sleep(100 * time.Millisecond)
	f.Write(t, "r/ok.txt", "Public notes.")
	waitFor(t, "the public file", func() bool { return text(f, "r/ok.txt") != "" })
	time.Sleep(200 * time.Millisecond) // a later sync would show the others
	f.WantSources(t, "r/ok.txt")
}

// TestWatchBusyFileDoesNotStarveOthers appends to one file every 50 ms and
// expects a new file beside it in the library within a few quiet periods
// (red team, second round: 75 s, until the periodic rescan).
func TestWatchBusyFileDoesNotStarveOthers(t *testing.T) {
	f := synctest.MustFixture(t)
	os.MkdirAll(f.Path("r"), 0o755)
	const quiet = 300 * time.Millisecond
	startWatch(t, f, Options{Quiet: quiet, Rescan: -1})
	busy, err := os.Create(f.Path("r/busy.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // bounded: at most 400 writes (20 s)
		defer close(done)
		for i := range 400 {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				fmt.Fprintf(busy, "line %d of a log that never stops\n", i)
			}
		}
	}()
	defer func() { close(stop); <-done }()
	time.Sleep(2 * quiet)
	f.Write(t, "r/new.txt", "A new note beside a busy log.")
	took := waitFor(t, "the new file beside a busy one", func() bool { return text(f, "r/new.txt") != "" })
	t.Logf("new file searchable after %s beside a file appended every 50 ms", took)
	if limit := (maxWaitQuiets + 4) * quiet; took > limit {
		t.Fatalf("new file took %s, want at most %s", took, limit)
	}
	if text(f, "r/busy.log") != "" {
		t.Fatal("the busy file was ingested while still being written")
	}
}
