package weaviatetest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Install is the command that installs the server these tests expect.
const Install = "go install github.com/weaviate/weaviate/cmd/weaviate-server@v1.35.2"

// errNoBinary says weaviate-server was not found.
var errNoBinary = errors.New("weaviate-server not found on PATH, in $GOBIN or in $(go env GOPATH)/bin; install it with `" + Install + "`")

// Binary returns the path of weaviate-server: $MCPVEC_WEAVIATE_SERVER when
// set, else the first found on PATH, in $GOBIN, or in GOPATH/bin.
func Binary() (string, error) {
	if p := os.Getenv("MCPVEC_WEAVIATE_SERVER"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("weaviate-server"); err == nil {
		return p, nil
	}
	for _, dir := range goBinDirs() {
		p := filepath.Join(dir, "weaviate-server")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", errNoBinary
}

// goBinDirs lists where `go install` puts binaries, without running go.
func goBinDirs() []string {
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, p := range filepath.SplitList(gopath) {
		if p != "" {
			dirs = append(dirs, filepath.Join(p, "bin"))
		}
	}
	return dirs
}

// required reports whether a missing server fails tests instead of skipping.
func required() bool {
	return strings.EqualFold(os.Getenv("MCPVEC_WEAVIATE_TESTS"), "required")
}
