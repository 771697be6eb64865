package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// TestServeBesideStdioServerNamesIt: a desktop app's `serve --stdio`,
// started first, holds the library; a `mcpvec serve` started after is
// refused, and the refusal names that process and what to do, and
// commands handed to it say whom they go to.
func TestServeBesideStdioServerNamesIt(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "lib.db")
	mustRun(t, db, "ingest", filepath.Join("..", "..", "testdata", "cats.pdf"))
	cmd := exec.Command(os.Args[0], "serve", "--stdio")
	cmd.Env = childEnv(db)
	stdin, err := cmd.StdinPipe() // held open: the app keeps its session
	if err != nil {
		t.Fatal(err)
	}
	p, err := childproc.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); p.Stop() })
	waitOutput(t, p.Stderr, "serving MCP over stdio")

	pid := fmt.Sprintf("(PID %d)", cmd.Process.Pid)
	r := mcpvec(t, db, "serve", "--addr", "127.0.0.1:0")
	if r.code == 0 || !strings.Contains(r.stderr, "`mcpvec serve --stdio` "+pid) || !strings.Contains(r.stderr, "quit the app") {
		t.Errorf("serve beside a stdio server: %+v", r)
	}
	if r := mcpvec(t, db, "ls"); r.code != 0 || !strings.Contains(r.stderr, "running `mcpvec serve --stdio` "+pid) {
		t.Errorf("ls handed to the stdio server: %+v", r)
	}
}
