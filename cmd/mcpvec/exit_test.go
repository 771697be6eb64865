package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// runMapped runs one command in process through dispatch, the mapper every
// command's error goes through, with the admin sockets in dir, and returns
// its exit status, stdout and stderr with dir written DIR.
func runMapped(t *testing.T, dir, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return dir
		}
		return ""
	}
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: getenv, cwd: dir}
	code := dispatch(context.Background(), args, e)
	return code, strings.ReplaceAll(out.String(), dir, "DIR"), strings.ReplaceAll(errb.String(), dir, "DIR")
}

// TestExitStatusEveryCommand runs the error paths of every command through
// the one mapper (exitStatus): usage mistakes exit 2, failures 1 with one
// "mcpvec: …" line, partial failures 1 after the command's own summary
// (no "mcpvec: …" line), a damaged or empty library file 1 with the hint
// pointing to check --repair, even where the command wraps the error in
// its own words. The statuses and lines are those of the commands before
// they returned errors; the unknown command's usage now ends with the exit
// statuses.
func TestExitStatusEveryCommand(t *testing.T) {
	t.Parallel()
	damagedSrc, _ := checkLibrary(t, 60)
	damaged := copyFile(t, damagedSrc)
	storetest.Damages[0].Apply(t, damaged)
	dir := t.TempDir()
	db, missing := filepath.Join(dir, "lib.db"), filepath.Join(dir, "missing.db")
	txt := writeFile(t, filepath.Join(dir, "a.txt"), "Cats purr when content.\n")
	empty := writeFile(t, filepath.Join(dir, "empty.db"), "")
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	writeFile(t, filepath.Join(docs, "b.txt"), "Dogs bark at strangers.\n")
	writeFile(t, filepath.Join(docs, "bad.docx"), "not a zip")
	if code, _, errs := runMapped(t, dir, "", "ingest", "--db", db, txt); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, errs)
	}
	const reported = "" // the command printed a summary; no "mcpvec: …" line
	for _, tc := range []struct {
		args []string
		code int
		line string // a whole line of stderr (DIR for the folder); reported: none starts "mcpvec: "
	}{
		{[]string{"nosuch"}, 2, `mcpvec: unknown command "nosuch"`},
		{[]string{"search", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"version", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"fetch", "--db", db}, 2, "Usage: mcpvec fetch [flags] ID"},
		{[]string{"ingest", "--db", db}, 2, "Usage: mcpvec ingest [flags] PATH..."},
		{[]string{"rm", "--db", db}, 2, "Usage: mcpvec rm [flags] ID|PATH..."},
		{[]string{"serve", "--db", db, "folder"}, 2, "Usage: mcpvec serve [flags] [--watch [FOLDER...]]"},
		{[]string{"auth", "nosuch"}, 2, `mcpvec auth: unknown command "nosuch"`},
		{[]string{"auth", "revoke", "--db", db}, 2, "Usage: mcpvec auth revoke [flags] ID|--user WHO|--all"},
		{[]string{"ls", "--help"}, 0, "Usage: mcpvec ls [flags] [PATH...]"},
		{[]string{"search", "--db", missing, "cats"}, 1, "mcpvec: no library at DIR/missing.db yet: run `mcpvec ingest FILE...` first (or pass --db)"},
		{[]string{"search", "--db", db, "--mode", "zzz", "x"}, 1, `mcpvec: unknown search mode "zzz" (want hybrid, lexical or vector)`},
		{[]string{"fetch", "--db", db, "9999"}, 1, `mcpvec: no document or passage with that id: "9999"`},
		{[]string{"rm", "--db", db, "nosuch"}, 1, "mcpvec: nosuch: no such document id or ingested path"},
		{[]string{"ingest", "--db", db, txt, filepath.Join(docs, "bad.docx")}, 1, reported},
		{[]string{"ingest", "--db", db, "--url", "http://x", txt, docs}, 1, "mcpvec: --url needs exactly one file argument (use --url-prefix for folders)"},
		{[]string{"sync", "--db", db}, 1, "mcpvec: no folders synced yet: run `mcpvec sync FOLDER...` once; later a bare `mcpvec sync` re-syncs them"},
		{[]string{"sync", "--db", db, docs}, 1, reported},
		{[]string{"reindex", "--db", db}, 1, "mcpvec: reindex needs the new embedder: --embedder hash|corpus|ollama|openai [--embed-model M] [--dimensions N]"},
		{[]string{"reindex", "--db", db, "--embedder", "hash", "--embed-model", "x"}, 1, "mcpvec: --embed-model is for --embedder ollama or openai (the offline embedder has one model)"},
		{[]string{"reindex", "--db", db, "--into", "x", "--embedder", "hash"}, 1, "mcpvec: --into is for a Weaviate library (--store); a library file is reindexed in place"},
		{[]string{"migrate", "--db", db}, 1, "mcpvec: migrate needs exactly one of --to or --from (a weaviate:// URL)"},
		{[]string{"auth", "passphrase", "--db", db}, 1, "mcpvec: " + errNoPassphrase.Error()},
		{[]string{"check", "--db", missing}, 1, "mcpvec: no library at DIR/missing.db: stat DIR/missing.db: no such file or directory"},
		{[]string{"check", "--db", damaged}, 1, reported},
		{[]string{"ls", "--db", empty}, 1, "mcpvec: DIR/empty.db: library file is empty (0 bytes) — remove it, or run `mcpvec ingest` to start a new library there"},
		// check --repair words the empty file its own way; the hint wins.
		{[]string{"check", "--repair", "--db", empty}, 1, "mcpvec: DIR/empty.db: library file is empty (0 bytes) — remove it, or run `mcpvec ingest` to start a new library there"},
	} {
		code, _, errs := runMapped(t, dir, "", tc.args...)
		var mapped []string
		for l := range strings.Lines(errs) {
			if strings.HasPrefix(l, "mcpvec: ") || strings.HasPrefix(l, "mcpvec auth: ") {
				mapped = append(mapped, l)
			}
		}
		switch {
		case code != tc.code:
			t.Errorf("mcpvec %v: exit %d, want %d\n%s", tc.args, code, tc.code, errs)
		case tc.line == reported && len(mapped) > 0:
			t.Errorf("mcpvec %v: a summary's failure printed an error too:\n%s", tc.args, errs)
		case tc.line != reported && !strings.Contains("\n"+errs, "\n"+tc.line+"\n"):
			t.Errorf("mcpvec %v: stderr lacks the line %q:\n%s", tc.args, tc.line, errs)
		case len(mapped) > 1:
			t.Errorf("mcpvec %v: %d error lines, want one:\n%s", tc.args, len(mapped), errs)
		}
	}
	for _, args := range [][]string{{"info"}, {"ls"}, {"search", "cats"}, {"fetch", "x"}, {"rm", "x"}, {"ingest", txt},
		{"reindex", "--embedder", "hash"}, {"serve", "--addr", "127.0.0.1:0"}} {
		code, _, errs := runMapped(t, dir, "", append(args, "--db", damaged)...)
		if code != 1 || !strings.HasPrefix(errs, "mcpvec: ") || !strings.HasSuffix(errs, "— run `mcpvec check --repair` to copy every readable document into a new library\n") {
			t.Errorf("mcpvec %v on a damaged library: exit %d, want 1 and the hint alone:\n%s", args, code, errs)
		}
	}
}

// TestHelpListsExitStatuses: `mcpvec --help` documents the exit statuses
// exitStatus maps errors to, as restic's help does.
func TestHelpListsExitStatuses(t *testing.T) {
	code, out, _ := runInProcess(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"\nExit status:\n", "\n  0  success\n", "\n  1  failure", "\n  2  usage"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
}

// TestExitStatusMapper: each kind of error a command returns gets its
// status and at most one line; a command's own words around a damaged
// library give way to the hint, whose text is the cause's.
func TestExitStatusMapper(t *testing.T) {
	corrupt := fmt.Errorf("open library /x.db: %w", store.ErrCorrupt)
	for _, tc := range []struct {
		err  error
		code int
		out  string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{errUsage, 2, ""},
		{&usageError{prog: "mcpvec", msg: `unknown command "x"`, usage: func(w io.Writer) { fmt.Fprintln(w, "USAGE") }}, 2, "mcpvec: unknown command \"x\"\n\nUSAGE\n"},
		{errReported, 1, ""},
		{exited(0), 0, ""},
		{exited(3), 3, ""},
		{fmt.Errorf("wrapped: %w", exited(2)), 2, ""},
		{errors.New("no\x1b[2Jgood\nnext"), 1, "mcpvec: no\\x1b[2Jgood\nnext\n"},
		{&busyError{holder: "ingest", pid: 7}, 1, "mcpvec: an ingest is running (PID 7); try again when it ends\n"},
		{failf("rm %s: %w", "a", errors.New("disk")), 1, "mcpvec: rm a: disk\n"},
		{failf("rm %s: %w", "a", corrupt), 1, "mcpvec: " + oneLine(corrupt) + " — run `mcpvec check --repair` to copy every readable document into a new library\n"},
		{failf("outer: %w", failf("inner: %w", corrupt)), 1, "mcpvec: " + oneLine(corrupt) + " — run `mcpvec check --repair` to copy every readable document into a new library\n"},
		{fmt.Errorf("embedder: %w", corrupt), 1, "mcpvec: embedder: " + oneLine(corrupt) + " — run `mcpvec check --repair` to copy every readable document into a new library\n"},
	} {
		var b bytes.Buffer
		if got := exitStatus(&b, tc.err); got != tc.code || b.String() != tc.out {
			t.Errorf("exitStatus(%v) = %d, %q; want %d, %q", tc.err, got, b.String(), tc.code, tc.out)
		}
	}
}
