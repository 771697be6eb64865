package lexical

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/analysis"
)

// TestKnownItemCauses explains, query by query, why a known-item query of
// a real-text set (cmd/mcpvec-realtext build) misses its passage: it
// builds the index of the set's passages as bench/anchors does and, for
// each query of MCPVEC_KNOWNITEM_QUERIES (0-based line numbers of
// queries.tsv; scripts/known-item-causes.py picks those Lucene finds and
// mcpvec misses), writes to MCPVEC_KNOWNITEM_OUT the passage's rank, the
// query's terms, the first result's and the passage's per-term BM25
// parts, and flags: R the query's terms are not its English reading, R+
// the English reading finds the passage; P the passage is not read as
// English; D a passage of the same text (after the heading path) ranks
// in the top 10; K k1 = 1.2 finds the passage. Opt-in (it needs the set):
//
//	MCPVEC_KNOWNITEM_SET=/tmp/rtc/20000 MCPVEC_KNOWNITEM_QUERIES="92 109" \
//	  MCPVEC_KNOWNITEM_OUT=/tmp/causes.txt go test -run TestKnownItemCauses -v ./index/lexical/
func TestKnownItemCauses(t *testing.T) {
	set, texts, key := knownItemSet(t)
	ix := New(DefaultConfig())
	for i, tx := range texts {
		ix.Add(uint64(i), tx)
	}
	ix.Fold()
	want := map[int]bool{}
	for _, s := range strings.Fields(os.Getenv("MCPVEC_KNOWNITEM_QUERIES")) {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		want[n] = true
	}
	out, err := os.Create(cmpOrDevNull(os.Getenv("MCPVEC_KNOWNITEM_OUT")))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	hits := 0
	for qi, l := range knownItemLines(t, set+"/queries.tsv") {
		f := strings.Split(l, "\t")
		target := key[f[1]+"\t"+f[2]]
		rank := rankOf(ix.SearchQuery(f[4], nil, 1000), target)
		if rank >= 0 && rank < 10 {
			hits++
		}
		if want[qi] {
			explainKnownItem(out, ix, texts, qi, f[3], f[4], target, rank)
		}
	}
	t.Logf("success@10 = %d of the set's queries", hits)
}

func cmpOrDevNull(s string) string {
	if s == "" {
		return os.DevNull
	}
	return s
}

func rankOf(rs []Result, target int) int {
	for r, x := range rs {
		if int(x.ID) == target {
			return r
		}
	}
	return -1
}

// explainKnownItem writes one query's flags and per-term parts.
func explainKnownItem(out io.Writer, ix *Index, texts []string, qi int, kind, text string, target, rank int) {
	toks := analysis.Tokenize(text)
	if len(toks) <= expandMax && len(text) <= shortQueryBytes && analysis.Detect(text) == analysis.English {
		if held, dominant := ix.languages(); len(held) > 0 {
			toks, _ = ix.reading(text, toks, held, dominant)
		}
	}
	in10 := func(rs []Result) bool { r := rankOf(rs, target); return r >= 0 && r < 10 }
	flags := ""
	if en := analysis.TokenizeAs(text, analysis.English); strings.Join(en, " ") != strings.Join(toks, " ") {
		flags += "R"
		if qtf, _ := ix.countTerms(queryRunTerms(en)); in10(ix.searchCountedIn(qtf, 10, nil)) {
			flags += "+"
		}
	}
	if analysis.Detect(texts[target]) != analysis.English {
		flags += "P"
	}
	top := ix.SearchQuery(text, nil, 10)
	for _, x := range top {
		if int(x.ID) != target && afterHeading(texts[x.ID]) == afterHeading(texts[target]) {
			flags += "D"
			break
		}
	}
	old := ix.cfg
	ix.cfg.K1 = 1.2
	if in10(ix.SearchQuery(text, nil, 10)) {
		flags += "K"
	}
	ix.cfg = old
	fmt.Fprintf(out, "FLAGS q%d %s\n=== q%d %s rank=%d  query=%q\n   terms=%v  detect=%v\n", qi, flags, qi, kind, rank, text, toks, analysis.Detect(text))
	if len(top) > 0 {
		explainPassage(out, ix, "TOP1", int(top[0].ID), texts, toks)
	}
	explainPassage(out, ix, "TARG", target, texts, toks)
}

func afterHeading(s string) string {
	if i := strings.Index(s, "\n\n"); i >= 0 {
		return s[i+2:]
	}
	return s
}

// explainPassage writes a passage's length, language and BM25 part per
// query term.
func explainPassage(out io.Writer, ix *Index, label string, id int, texts []string, toks []string) {
	bm := ix.bm25()
	d := ix.docs[ix.slots()[uint64(id)]]
	tf := map[string]uint32{}
	for tid, c := range unpackTerms(d.terms) {
		tf[ix.termStr[tid]] = c
	}
	var parts []string
	total, seen := 0.0, map[string]bool{}
	for _, q := range toks {
		if seen[q] {
			continue
		}
		seen[q] = true
		tid, ok := ix.termIDs[q]
		if !ok {
			parts = append(parts, q+":absent")
			continue
		}
		c := 0.0
		if tf[q] > 0 {
			c = bm.term(bm.weight(1, ix.df[tid]), tf[q], d.length)
		}
		total += c
		parts = append(parts, fmt.Sprintf("%s(df%d,tf%d)=%.2f", q, ix.df[tid], tf[q], c))
	}
	txt := texts[id]
	if len(txt) > 160 {
		txt = txt[:160]
	}
	fmt.Fprintf(out, "   %s p%d len=%d lang=%v score=%.2f %s\n      %q\n", label, id, d.length, analysis.Detect(texts[id]), total, strings.Join(parts, " "), txt)
}

var knownItemUnescape = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")

// knownItemSet is the real-text set MCPVEC_KNOWNITEM_SET names (the test
// is skipped without one), with its passages as knownItemPassages reads
// them, and the short-query rule on for the test, as serve ranks.
func knownItemSet(t *testing.T) (set string, texts []string, key map[string]int) {
	set = os.Getenv("MCPVEC_KNOWNITEM_SET")
	if set == "" {
		t.Skip("set MCPVEC_KNOWNITEM_SET to a real-text set (docs/benchmarks/known-item.md)")
	}
	withShortQueries(t)
	texts, key = knownItemPassages(t, set+"/passages.tsv")
	return set, texts, key
}

// knownItemPassages reads passages.tsv: the texts, and each passage's
// number by "doc\tindex".
func knownItemPassages(t *testing.T, path string) ([]string, map[string]int) {
	var texts []string
	key := map[string]int{}
	for i, l := range knownItemLines(t, path) {
		f := strings.SplitN(l, "\t", 3)
		if len(f) != 3 {
			t.Fatalf("%s:%d: want 3 fields", path, i+1)
		}
		texts = append(texts, knownItemUnescape.Replace(f[2]))
		key[f[0]+"\t"+f[1]] = i
	}
	return texts, key
}

func knownItemLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
