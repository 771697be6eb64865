package admin

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the package a leaf that only cmd wires: admin imports
// no other mcpvec package, and no production package outside cmd/ imports
// admin.
func TestImports(t *testing.T) {
	const mod = "github.com/mcpvec/mcpvec"
	const self = mod + "/server/admin"
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		inAdmin := strings.HasPrefix(rel, "server/admin/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case inAdmin && (p == mod || strings.HasPrefix(p, mod+"/")):
				t.Errorf("%s imports %s: server/admin must be a leaf", rel, p)
			case p == self && !strings.HasPrefix(rel, "cmd/"):
				t.Errorf("%s imports %s: only cmd wires the admin channel", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
