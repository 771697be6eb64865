package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// saveRows writes each row to dir/NAME.row in the Lucene driver's output
// format, after a first line holding the engine's name; -combine reads
// them back. Engines run side by side as separate processes this way on
// a busy machine, each on one thread, and are still compared per query.
func saveRows(dir string, rows []result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range rows {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\n%d %d %d\n", r.engine, int64(r.buildWall), int64(r.build), r.size)
		for i, d := range r.cpu {
			fmt.Fprintf(&b, "%d\t%s\n", int64(d), strings.Trim(fmt.Sprint(r.top[i]), "[]"))
		}
		name := strings.Map(func(c rune) rune {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				return c
			}
			return '-'
		}, r.engine)
		if err := os.WriteFile(filepath.Join(dir, name+".row"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// loadRows reads the rows saved in dir, mcpvec's first. A row holds
// either the n queries reported or all of them (a run without
// -max-queries), and is then cut to the same n (spread).
func loadRows(dir string, all, n int) ([]result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.row"))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b string) int {
		am, bm := strings.Contains(a, "mcpvec-BM25"), strings.Contains(b, "mcpvec-BM25")
		if am != bm {
			if am {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	var rows []result
	for _, f := range files {
		r, err := loadRow(f)
		if err != nil {
			return nil, err
		}
		if len(r.cpu) == all {
			r.cpu, r.top = spread(r.cpu, n), spread(r.top, n)
		}
		if len(r.cpu) != n {
			return nil, fmt.Errorf("%s: %d queries, want %d (or all %d)", f, len(r.cpu), n, all)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func loadRow(path string) (result, error) {
	f, err := os.Open(path)
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return result{}, fmt.Errorf("%s: empty", path)
	}
	return parseOut(result{engine: sc.Text()}, sc, -1, path)
}
