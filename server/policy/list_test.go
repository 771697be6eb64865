package policy

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestListFollowsEdits: removing a person takes effect on the next call,
// a broken edit keeps the last good rules (logged), a fixed one applies.
func TestListFollowsEdits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.txt")
	writeFile(t, path, "papers read alice@example.com\npapers read bob@example.com\n")
	var logs bytes.Buffer
	l, err := Open(path, Options{Every: -1, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Allows(bob, "papers", identity.Read) {
		t.Fatal("bob refused before the edit")
	}
	writeFile(t, path, "papers read alice@example.com\n")
	if l.Allows(bob, "papers", identity.Read) {
		t.Fatal("bob still allowed after his line was removed")
	}
	writeFile(t, path, "papers read alice@example.com\npapers sudo bob@example.com\n")
	if !l.Allows(alice, "papers", identity.Read) || l.Allows(bob, "papers", identity.Read) {
		t.Fatal("a broken edit changed the rules")
	}
	if !strings.Contains(logs.String(), "line 2") {
		t.Errorf("the broken edit was not logged with its line: %q", logs.String())
	}
	writeFile(t, path, "papers write bob@example.com\n")
	if l.Allows(alice, "papers", identity.Read) || !l.Allows(bob, "papers", identity.Write) {
		t.Fatal("the fixed edit did not apply")
	}
}

// TestListLooksAtMostEvery: within Every the file is not looked at, so a
// request costs no system call; after it, the edit applies.
func TestListLooksAtMostEvery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "allow.txt")
	writeFile(t, path, "papers read bob@example.com\n")
	l, err := Open(path, Options{Every: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "# nobody\n")
	if !l.Allows(bob, "papers", identity.Read) {
		t.Fatal("the file was looked at before Every passed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for l.Allows(bob, "papers", identity.Read) {
		if time.Now().After(deadline) {
			t.Fatal("the edit never applied")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestOpenRefusesBrokenFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "missing"), Options{}); err == nil {
		t.Error("a missing file opened")
	}
	path := filepath.Join(dir, "allow.txt")
	writeFile(t, path, "papers read\n")
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("err = %v, want a syntax error naming line 1", err)
	}
}
