// Command testnote prints, at the end of `make test`, one line for each
// optional tool the tests skip without, when it is missing: `go test ./...`
// reports a package whose tests all skipped as "ok" (the Weaviate
// packages in about a second) and shows skip messages only with -v, so
// nothing else would say that those tests did not run. A dependency made
// required (MCPVEC_*_TESTS=required, as .ci/run sets) fails its tests
// instead, so it needs no note.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpvec/mcpvec/library/weaviate/weaviatetest"
)

// main runs in the repository's root, as make does.
func main() {
	for _, n := range notes(".", os.Getenv, exec.LookPath) {
		fmt.Println(n)
	}
}

// dependency is an optional tool of the tests: found is nil when it is
// installed, else why not; fix says how to install it when found does not.
type dependency struct {
	env, tests, fix string
	found           func(root string, lookPath func(string) (string, error)) error
}

var dependencies = []dependency{
	{"MCPVEC_WEAVIATE_TESTS", "the Weaviate tests (library/weaviate, cmd/mcpvec *Weaviate*)",
		"", func(string, func(string) (string, error)) error { _, err := weaviatetest.Binary(); return err }},
	{"MCPVEC_OCR_TESTS", "the OCR tests (ingest/extract, cmd/mcpvec)", "apt install tesseract-ocr / brew install tesseract",
		func(_ string, look func(string) (string, error)) error { _, err := look("tesseract"); return err }},
	{"MCPVEC_BROWSER_TESTS", "the browser tests (server/web)", "apt install chromium, or set MCPVEC_CHROMIUM",
		func(_ string, look func(string) (string, error)) error {
			for _, name := range []string{os.Getenv("MCPVEC_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
				if _, err := look(name); name != "" && err == nil {
					return nil
				}
			}
			return fmt.Errorf("no chromium found")
		}},
	{"MCPVEC_NODE_TESTS", "the Node MCP client tests (server, cmd/mcpvec)", "install npm; make test then installs them",
		func(root string, _ func(string) (string, error)) error {
			_, err := os.Stat(filepath.Join(root, "server", "testdata", "node", "node_modules", ".package-lock.json"))
			return err
		}},
}

// notes is a line for each dependency missing under the repository root
// whose tests skip (are not required).
func notes(root string, getenv func(string) string, lookPath func(string) (string, error)) []string {
	var out []string
	for _, d := range dependencies {
		if getenv(d.env) == "required" {
			continue
		}
		if err := d.found(root, lookPath); err != nil {
			fix := ""
			if d.fix != "" {
				fix = "; " + d.fix
			}
			out = append(out, fmt.Sprintf("SKIPPED: %s did not run: %v%s (%s=required fails instead).", d.tests, err, fix, d.env))
		}
	}
	return out
}
