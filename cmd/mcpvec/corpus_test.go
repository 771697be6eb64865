package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// corpusWord is word w of topic t: letters only, so the tokenizer keeps it
// whole ("zabukemo").
func corpusWord(t, w int) string {
	syl := []string{"ba", "ke", "mo", "ri", "su", "ta", "ne", "lo", "pi", "du", "ga", "fe", "zo", "vi", "hu", "ja"}
	return "z" + syl[t%16] + syl[t/16] + syl[w%16] + syl[w/16]
}

// corpusReport writes a file per topic of 40 (15 words a topic) into dir,
// named after part, with n paragraphs in all, each of ten words of its
// topic. The rare word of topic 0 (its 14th) is in only three paragraphs,
// so most of topic 0 lacks it.
func corpusReport(t *testing.T, dir, part string, n int) {
	r := rand.New(rand.NewPCG(uint64(len(part)), 9))
	for topic := range 40 {
		var b strings.Builder
		for i := range n / 40 {
			for range 10 {
				fmt.Fprintf(&b, "%s ", corpusWord(topic, r.IntN(14)))
			}
			if topic == 0 && i < 3 && part == "a" {
				b.WriteString(corpusWord(0, 14))
			}
			b.WriteString(".\n\n")
		}
		writeFile(t, filepath.Join(dir, fmt.Sprintf("%s%02d.txt", part, topic)), b.String())
	}
}

// TestCorpusEmbedderLifecycle drives --embedder corpus as a user does: a
// small library stays lexical and says so; the ingest that brings it past
// corpusMinPassages fits the model and re-embeds every passage; a vector
// search for a rare word then finds passages of its topic that do not
// contain it; reindex refits; a later ingest folds new passages in; an
// ingest of words the model does not know refits it.
func TestCorpusEmbedderLifecycle(t *testing.T) {
	t.Parallel()
	db, docs := libAndFolder(t, "docs")
	corpusReport(t, docs, "a", 400)
	chunk := []string{"--chunk-tokens", "16", "--overlap-tokens", "0"}
	r := mcpvec(t, db, append(append([]string{"ingest", "--embedder", "corpus"}, chunk...), docs)...)
	if r.code != 0 || !strings.Contains(r.stderr, "search stays lexical") {
		t.Fatalf("first ingest: exit %d, stderr %q; want a note that search stays lexical", r.code, r.stderr)
	}
	if out := mustRun(t, db, "info"); !strings.Contains(out, "search is lexical until then") {
		t.Errorf("info of a small corpus library:\n%s\nwant the note that search is lexical", out)
	}
	corpusReport(t, docs, "bb", 1000) // 2,120 passages in all: just past corpusMinPassages
	r = mcpvec(t, db, append(append([]string{"ingest", "--embedder", "corpus"}, chunk...), docs)...)
	if r.code != 0 || !strings.Contains(r.stderr, "corpus vectors: fitted") {
		t.Fatalf("second ingest: exit %d, stderr %q; want the fit", r.code, r.stderr)
	}
	info := libInfo(t, db, nil)
	if info.Embedder.Provider != "corpus" || info.Passages < corpusMinPassages {
		t.Fatalf("after the fit: embedder %+v, %d passages; want corpus", info.Embedder, info.Passages)
	}
	checkTopicSearch(t, db)
	out := mustRun(t, db, "reindex", "--embedder", "corpus")
	if !strings.Contains(out, "reindexed") {
		t.Errorf("reindex --embedder corpus: %q", out)
	}
	corpusReport(t, docs, "ccc", 120)
	r = mcpvec(t, db, append([]string{"ingest"}, append(chunk, docs)...)...)
	if r.code != 0 || strings.Contains(r.stderr, "fitted") {
		t.Errorf("third ingest: exit %d, stderr %q; want the passages folded in without a refit", r.code, r.stderr)
	}
	if got := libInfo(t, db, nil); got.Passages <= info.Passages || got.Embedder.Model != info.Embedder.Model {
		t.Errorf("after the third ingest: %d passages (%d before) with %+v; want more, same embedder %+v", got.Passages, info.Passages, got.Embedder, info.Embedder)
	}
	checkTopicSearch(t, db)
	// New topics, none of whose words the model knows: a drift, refitted.
	for topic := 40; topic < 48; topic++ {
		var b strings.Builder
		for range 40 {
			for w := range 10 {
				fmt.Fprintf(&b, "%s ", corpusWord(topic, (w*7+topic)%15))
			}
			b.WriteString(".\n\n")
		}
		writeFile(t, filepath.Join(docs, fmt.Sprintf("new%02d.txt", topic)), b.String())
	}
	r = mcpvec(t, db, append([]string{"ingest"}, append(chunk, docs)...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "not in the model; refitting") {
		t.Errorf("ingest of unknown words: exit %d, stderr %q; want a refit", r.code, r.stderr)
	}
	if got := libInfo(t, db, nil); got.Embedder.Provider != "corpus" || got.Embedder.Model == info.Embedder.Model {
		t.Errorf("after the drift: embedder %+v, want a new corpus model (was %s)", got.Embedder, info.Embedder.Model)
	}
}

// checkTopicSearch searches by vector for topic 0's rare word: every one
// of the top 10 must be a topic-0 passage, and some must lack the word
// (found by meaning, not by the word).
func checkTopicSearch(t *testing.T, db string) {
	t.Helper()
	rare := corpusWord(0, 14)
	out := mustRun(t, db, "search", "--json", "--mode", "vector", rare)
	var resp struct {
		Results []struct {
			Text string `json:"text"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	without := 0
	for i, res := range resp.Results {
		if !strings.Contains(res.Text, corpusWord(0, 0)[:5]) {
			t.Errorf("result %d is not of topic 0: %q", i+1, res.Text)
		}
		if !strings.Contains(res.Text, rare) {
			without++
		}
	}
	if len(resp.Results) < 10 || without == 0 {
		t.Errorf("%d results, %d without %q; want 10, some found by meaning alone", len(resp.Results), without, rare)
	}
}
