package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func mustOpen(t *testing.T, dir string, opt Options) *Log {
	t.Helper()
	l, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestWriteRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib.db.audit")
	l := mustOpen(t, dir, Options{})
	t0 := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	for _, e := range []Entry{
		{Time: t0, User: "alice@example.com", Key: "https://id#1", Library: "papers", Action: Search, Results: 3},
		{Time: t0.Add(time.Hour), User: "bob@example.com", Key: "https://id#2", Library: "notes", Action: Fetch, Target: "abc:1", Results: 1},
		{Time: t0.Add(2 * time.Hour), User: "alice@example.com", Key: "https://id#1", Library: "notes", Action: Remove, Target: "abc"},
	} {
		if err := l.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		f    Filter
		want int
	}{
		{Filter{}, 3},
		{Filter{User: "Alice@Example.com"}, 2},
		{Filter{User: "https://id#2"}, 1},
		{Filter{Library: "notes"}, 2},
		{Filter{Since: t0.Add(30 * time.Minute)}, 2},
		{Filter{User: "alice@example.com", Library: "notes"}, 1},
	} {
		got, err := Read(dir, c.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != c.want {
			t.Errorf("Read(%+v) = %d entries, want %d", c.f, len(got), c.want)
		}
	}
	got, _ := Read(dir, Filter{User: "bob@example.com"})
	if len(got) == 1 && (got[0].Target != "abc:1" || !got[0].Time.Equal(t0.Add(time.Hour))) {
		t.Errorf("bob's entry = %+v", got[0])
	}
	if got, err := Read(filepath.Join(dir, "missing"), Filter{}); err != nil || len(got) != 0 {
		t.Errorf("a missing folder: %d entries, %v", len(got), err)
	}
}

// TestRotateKeepsNewest: past MaxBytes the file is rotated, only Keep
// rotated files stay, and Read returns the newest entries in order.
func TestRotateKeepsNewest(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{MaxBytes: 400, Keep: 2})
	for i := range 40 {
		if err := l.Write(Entry{User: "owner", Library: "lib", Action: Search, Results: i}); err != nil {
			t.Fatal(err)
		}
	}
	names, err := rotated(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 {
		t.Fatalf("%d rotated files, want 2: %v", len(names), names)
	}
	for _, n := range append(names, current) {
		if fi, err := os.Stat(filepath.Join(dir, n)); err != nil || fi.Size() > 400 {
			t.Errorf("%s: %v, size over MaxBytes", n, err)
		}
	}
	got, err := Read(dir, Filter{})
	if err != nil || len(got) == 0 {
		t.Fatal(len(got), err)
	}
	for i, e := range got {
		if want := 40 - len(got) + i; e.Results != want {
			t.Fatalf("entry %d has Results %d, want %d: not the newest, in order", i, e.Results, want)
		}
	}
}

// TestConcurrentWritesStayWhole: many writers, every line whole, and a
// torn last line (a power cut) is skipped by Read.
func TestConcurrentWritesStayWhole(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				l.Write(Entry{User: fmt.Sprintf("u%d", w), Library: "lib", Action: Fetch, Target: fmt.Sprint(i)})
			}
		}()
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(Entry{}); err != ErrClosed {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, current), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-12-05T08:00:00Z","user":"torn`)
	f.Close()
	got, err := Read(dir, Filter{})
	if err != nil || len(got) != 400 {
		t.Fatalf("%d entries (%v), want 400", len(got), err)
	}
}
