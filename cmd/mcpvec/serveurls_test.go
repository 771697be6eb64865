package main

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// TestServePrintsEachEndpointOnce is issue 34 item 8: with a loopback
// --public-url that is the server's own address, serve listed every
// endpoint twice on stdout, and logged them all once more on stderr.
func TestServePrintsEachEndpointOnce(t *testing.T) {
	dir, db := tempLib(t)
	mustRun(t, db, "ingest", writeFile(t, dir+"/a.txt", "lighthouse keepers trimmed the wicks nightly"))
	addr, err := childproc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, db, nil, "--addr", addr, "--public-url", "http://"+addr)
	mcpSearchJSON(t, s.c, "lighthouse") // the server is past its start-up lines
	out := s.Stdout.String() + s.Stderr.String()
	for _, u := range []string{"http://" + addr + "/mcp", "http://" + addr + "/sse"} {
		if n := strings.Count(out, u); n != 1 {
			t.Errorf("%s printed %d times:\n%s", u, n, out)
		}
	}
	if !strings.Contains(s.Stdout.String(), "Web page: http://"+addr+"/\n") {
		t.Errorf("no web page line:\n%s", s.Stdout)
	}
}
