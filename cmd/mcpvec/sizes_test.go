package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The house habit (CONTRIBUTING.md): functions around ten lines and files
// under about 500; these are the hard limits, for production code only.
const (
	maxFuncLines = 60
	maxFileLines = 500
)

// TestFunctionAndFileSizes fails on a production function longer than
// maxFuncLines or a production file longer than maxFileLines anywhere in
// the module, so that a long function is split when it is written rather
// than in a later clean-up. Tests, testdata and node_modules are exempt.
func TestFunctionAndFileSizes(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		if n := fset.Position(f.End()).Line; n > maxFileLines {
			t.Errorf("%s: %d lines; split it (at most %d)", rel, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: func %s is %d lines; split it (at most %d)", rel, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d production files; the walk from %s missed the module", files, root)
	}
}
