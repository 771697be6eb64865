package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	_ "github.com/mattn/go-sqlite3" // the system's libsqlite3 with the libsqlite3 build tag
)

// runFTS5 indexes the passages in an SQLite FTS5 table (porter stemmer over
// unicode61, the nearest built-in analyzer to English stemming) and ranks
// with bm25() (k1 1.2, b 0.75), ORing the query's words as Lucene's and
// mcpvec's parsers do. The table is optimized (merged to one b-tree)
// before its size is read.
func runFTS5(ps []passage, qs []query, dir string, rounds int) (result, error) {
	r := result{engine: "SQLite FTS5 bm25()"}
	path := filepath.Join(dir, "fts5.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return r, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var version string
	_ = db.QueryRow("select sqlite_version()").Scan(&version)
	r.engine += " " + version
	r.buildWall, r.build, err = timeBuild(func() error { return fillFTS5(db, ps) })
	if err != nil {
		return r, fmt.Errorf("fts5 build: %w", err)
	}
	if st, err := os.Stat(path); err == nil {
		r.size = st.Size()
	}
	stmt, err := db.Prepare("select rowid from p where p match ? order by bm25(p) limit 10")
	if err != nil {
		return r, err
	}
	defer stmt.Close()
	r.cpu, r.top, err = measure(qs, rounds, func(q string) ([]int, error) {
		m := ftsQuery(q)
		if m == "" {
			return nil, nil
		}
		rows, err := stmt.Query(m)
		if err != nil {
			return nil, fmt.Errorf("fts5 %q: %w", m, err)
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				return nil, err
			}
			out = append(out, id)
		}
		return out, rows.Err()
	})
	return r, err
}

func fillFTS5(db *sql.DB, ps []passage) error {
	for _, s := range []string{"pragma journal_mode=off", "pragma synchronous=off",
		"create virtual table p using fts5(text, tokenize = 'porter unicode61')"} {
		if _, err := db.Exec(s); err != nil {
			return err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	ins, err := tx.Prepare("insert into p(rowid, text) values (?, ?)")
	if err != nil {
		return err
	}
	for i, p := range ps {
		if _, err := ins.Exec(i, p.text); err != nil {
			return err
		}
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.Exec("insert into p(p) values('optimize')")
	return err
}

// ftsQuery ORs the query's words, each quoted (FTS5's syntax would read
// AND, NOT, parentheses, colons).
func ftsQuery(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " OR ")
}
