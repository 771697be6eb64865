package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
	"github.com/mcpvec/mcpvec/cmd/internal/minipdf"
)

// childEnv is the environment of every child: a private runtime dir keeps
// the admin socket apart from any other server on the machine.
func childEnv(dir string) []string {
	return append(childproc.Env(dir), "MCPVEC_DB="+filepath.Join(dir, "library.db"))
}

// makeLibrary ingests the demo PDF and one PDF of bigMiB into a new library.
func makeLibrary(ctx context.Context, bin, root, dir string, bigMiB int) error {
	big := filepath.Join(dir, "big.pdf")
	if err := os.WriteFile(big, bigPDF(bigMiB<<20), 0o600); err != nil {
		return err
	}
	if out, err := childproc.Run(ctx, bin, childEnv(dir), "ingest", filepath.Join(root, "testdata", "cats.pdf"), big); err != nil {
		return fmt.Errorf("ingest: %w\n%s", err, out)
	}
	return os.Remove(big)
}

// bigMarker is a word only the big PDF contains, to find its link.
const bigMarker = "zanzibarquokka"

// bigPDF is a one-page PDF naming bigMarker, padded to about size bytes.
func bigPDF(size int) []byte {
	return minipdf.Write([]minipdf.Page{{"The " + bigMarker + " report on reliability."}}, minipdf.Options{Size: size})
}

// serverProc is a running `mcpvec serve`.
type serverProc struct {
	*childproc.Proc
	base string // http://127.0.0.1:port
}

// startServer runs `mcpvec serve` on 127.0.0.1:0 and waits for its URL.
func startServer(ctx context.Context, bin, dir string) (*serverProc, error) {
	p, endpoint, err := childproc.StartServe(ctx, bin, childEnv(dir), 60*time.Second)
	if err != nil {
		return nil, err
	}
	return &serverProc{Proc: p, base: strings.TrimSuffix(endpoint, "/mcp")}, nil
}
