// Package evalset reads the shared retrieval collections (under
// ../shared/eval: a folder per collection with corpus.jsonl, queries.jsonl
// and qrels.tsv, never copied into the project) and scores TREC runs with
// their eval.py. cmd/mcpvec-eval uses it, and so do the opt-in evaluation
// tests of index/lexical and ingest/embed, so that each does not carry its
// own reader and scorer. Its functions are safe for concurrent use.
package evalset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Doc is one line of corpus.jsonl.
type Doc struct{ ID, Title, Text string }

// Query is one line of queries.jsonl.
type Query struct{ ID, Text string }

// Load reads the documents and queries of the collection in folder base
// (e.g. ../shared/eval/scifact).
func Load(base string) ([]Doc, []Query, error) {
	docs, err := ReadJSONL[Doc](filepath.Join(base, "corpus.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	queries, err := ReadJSONL[Query](filepath.Join(base, "queries.jsonl"))
	return docs, queries, err
}

// ReadJSONL decodes one T per line of the file at path. Errors name the
// file.
func ReadJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// QueryTexts reads the texts of a queries.jsonl file; none is an error.
func QueryTexts(path string) ([]string, error) {
	qs, err := ReadJSONL[Query](path)
	if err == nil && len(qs) == 0 {
		err = fmt.Errorf("%s: no queries", path)
	}
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Text
	}
	return out, err
}

// Score runs evalPy (the shared eval.py) on a TREC run file against a
// qrels file and returns its metrics ("ndcg@10", "recall@10", …).
func Score(evalPy, qrels, run string) (map[string]float64, error) {
	out, err := exec.Command("python3", evalPy, qrels, run, "--json").Output()
	if err != nil {
		return nil, fmt.Errorf("eval.py: %w", err)
	}
	var m struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	if err := json.Unmarshal(out, &m); err != nil || len(m.Metrics) == 0 {
		return nil, fmt.Errorf("eval.py output %q: %w", out, err)
	}
	return m.Metrics, nil
}

// ScorePerQuery runs evalPy on a TREC run file against a qrels file and
// returns the metrics of each evaluated query (one with a relevant
// document) by query id and metric name ("ndcg@10", "mrr@10", ...): the
// lines eval.py writes with --per-query, "QID ndcg@10=0.5000 ...".
func ScorePerQuery(evalPy, qrels, run string) (map[string]map[string]float64, error) {
	out, err := exec.Command("python3", evalPy, qrels, run, "--per-query").Output()
	if err != nil {
		return nil, fmt.Errorf("eval.py: %w", err)
	}
	per := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.Contains(f[1], "=") {
			continue // the means and counts that follow
		}
		m := map[string]float64{}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			if m[k], err = strconv.ParseFloat(v, 64); err != nil {
				return nil, fmt.Errorf("eval.py line %q: %w", sc.Text(), err)
			}
		}
		per[f[0]] = m
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(per) == 0 {
		return nil, fmt.Errorf("eval.py output %q: no query scored", out)
	}
	return per, nil
}
