package analysis

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestEstimateTokensSmall(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{" ", 0},
		{"cat", 1},
		{"the cat sat", 3},
		{"1234567", 3},  // digit groups of three
		{"a, b.", 4},    // words and ASCII punctuation
		{"\n\n", 1},     // a paragraph break
		{"猫是", 3},       // 1.5 per CJK character, rounded up
		{"\xff\xfe", 2}, // invalid bytes
		{"NASA", 2},     // capitals cost more
		{"the cat", 2},  // the space merges into "cat"
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEstimateTokensMonotone checks the property Split relies on: a
// substring cut at rune boundaries never costs more than the whole string.
func TestEstimateTokensMonotone(t *testing.T) {
	for _, s := range []string{
		"Pneumonoultramicroscopicsilicovolcanoconiosis", "12345678901234", "猫是一种小型食肉哺乳动物。",
		"a,b;c d", "Кошка—небольшое", "x\xffy", "  \n\n  ", "ABCDEFGHabcdefgh x", "Η γάτα είναι",
	} {
		whole := EstimateTokens(s)
		for i := 0; i < len(s); i++ {
			for j := i + 1; j <= len(s); j++ {
				if !isRuneStart(s, i) || !isRuneStart(s, j) {
					continue
				}
				if part := EstimateTokens(s[i:j]); part > whole {
					t.Errorf("EstimateTokens(%q) = %d > EstimateTokens(%q) = %d", s[i:j], part, s, whole)
				}
			}
		}
	}
}

type sample struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Count int    `json:"count"`
}

// TestEstimateTokensSamples compares the estimate with real cl100k counts of
// hand-written texts in several scripts, code, tables and symbols.
func TestEstimateTokensSamples(t *testing.T) {
	var est, real int
	for _, s := range readSamples(t) {
		got := EstimateTokens(s.Text)
		est, real = est+got, real+s.Count
		if ratio := float64(got) / float64(s.Count); ratio < 0.85 || ratio > 1.6 {
			t.Errorf("%s: estimate %d for %d real tokens (ratio %.2f, want 0.85..1.6)", s.ID, got, s.Count, ratio)
		}
	}
	if ratio := float64(est) / float64(real); ratio < 1 || ratio > 1.3 {
		t.Errorf("total estimate %d for %d real tokens (ratio %.2f, want 1..1.3)", est, real, ratio)
	}
}

// TestEstimateTokensEvalCorpora compares the estimate with real cl100k counts
// of every SciFact and Cranfield document in ../shared/eval (the counts are
// committed, the texts are read from the shared folder).
func TestEstimateTokensEvalCorpora(t *testing.T) {
	counts := readCounts(t)
	for _, corpus := range []string{"scifact", "cranfield"} {
		path := filepath.Join("..", "..", "shared", "eval", corpus, "corpus.jsonl")
		f, err := os.Open(path)
		if err != nil {
			t.Skipf("shared eval corpus not available: %v", err)
		}
		defer f.Close()
		var ratios []float64
		var est, real int
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var d struct{ ID, Title, Text string }
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatal(err)
			}
			text := d.Text
			if d.Title != "" {
				text = d.Title + "\n\n" + d.Text
			}
			want, ok := counts[corpus+"/"+d.ID]
			if !ok {
				t.Fatalf("%s/%s: no committed count", corpus, d.ID)
			}
			got := EstimateTokens(text)
			est, real = est+got, real+want
			if want > 0 {
				ratios = append(ratios, float64(got)/float64(want))
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		sort.Float64s(ratios)
		n := len(ratios)
		t.Logf("%s: %d docs, total ratio %.3f, min %.3f p1 %.3f median %.3f p99 %.3f max %.3f",
			corpus, n, float64(est)/float64(real), ratios[0], ratios[n/100], ratios[n/2], ratios[n*99/100], ratios[n-1])
		if ratios[0] < 0.9 || ratios[n/100] < 1 {
			t.Errorf("%s underestimates: min ratio %.3f (want >= 0.9), p1 %.3f (want >= 1)", corpus, ratios[0], ratios[n/100])
		}
		if r := float64(est) / float64(real); r > 1.3 {
			t.Errorf("%s overestimates: total ratio %.3f, want <= 1.3", corpus, r)
		}
	}
}

func readCounts(t *testing.T) map[string]int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "cl100k_eval_counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	counts := make(map[string]int)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			t.Fatalf("bad count line %q: %v", line, err)
		}
		counts[f[0]+"/"+f[1]] = n
	}
	return counts
}

func isRuneStart(s string, i int) bool {
	return i == len(s) || s[i]&0xC0 != 0x80
}
