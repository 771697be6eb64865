package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/internal/evalset"
)

// passage is one line of passages.tsv (cmd/mcpvec-realtext's format).
type passage struct {
	doc   string
	index int
	text  string
}

// query is one line of queries.tsv; doc is "" for a query without a known
// item (SciFact claims on the synthetic corpus).
type query struct {
	id, doc, text string
	passage       int
}

var unescaper = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")

// readPassages reads passages.tsv: doc, index, text with \\ \t \n \r escaped;
// without text, each passage's text is left empty.
func readPassages(path string, text bool) ([]passage, error) {
	var ps []passage
	doc := ""
	err := eachPassage(path, text, func(p passage) error {
		if p.doc != doc { // one copy a document: p.doc would keep the whole line alive
			doc = strings.Clone(p.doc)
		}
		p.doc = doc
		ps = append(ps, p)
		return nil
	})
	return ps, err
}

// eachPassage calls fn with each passage of passages.tsv in order, its
// text unescaped when text is true. p.doc is only valid during the call
// (it shares the line's memory): a caller that keeps it clones it.
func eachPassage(path string, text bool, fn func(p passage) error) error {
	return eachLine(path, func(line string) error {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			return fmt.Errorf("want 3 fields, got %d", len(f))
		}
		i, err := strconv.Atoi(f[1])
		if err != nil {
			return err
		}
		p := passage{doc: f[0], index: i}
		if text {
			p.text = unescaper.Replace(f[2])
		}
		return fn(p)
	})
}

// readQueries reads queries.tsv: id, doc, passage, kind, query, source.
func readQueries(path string) ([]query, error) {
	var qs []query
	err := eachLine(path, func(line string) error {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return fmt.Errorf("want 6 fields, got %d", len(f))
		}
		i, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		qs = append(qs, query{id: f[0], doc: f[1], passage: i, text: f[4]})
		return nil
	})
	return qs, err
}

// claimQueries are a collection's queries (SciFact's claims), with no
// known item.
func claimQueries(base string) ([]query, error) {
	_, qs, err := evalset.Load(base)
	if err != nil {
		return nil, err
	}
	out := make([]query, len(qs))
	for i, q := range qs {
		out[i] = query{id: q.ID, text: q.Text, passage: -1}
	}
	return out, nil
}

func eachLine(path string, fn func(string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(sc.Text()); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
