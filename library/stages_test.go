package library_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

// TestSearchReportsItsStages: a Search given library.WithStages reports
// its first stage, rerank and snippets, in order, each within the call.
func TestSearchReportsItsStages(t *testing.T) {
	f, _ := rerankFixture(t)
	var logs bytes.Buffer
	l := withReranker(f, &kiwiReranker{delay: 5 * time.Millisecond}, &logs, time.Second)
	var stages []library.Stage
	ctx := library.WithStages(context.Background(), func(s library.Stage) { stages = append(stages, s) })
	start := time.Now()
	if _, err := l.Search(ctx, "apple", library.SearchOptions{K: 6, Mode: library.Lexical}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	var names []string
	for _, s := range stages {
		names = append(names, s.Name)
		if s.Start.Before(start) || s.Took < 0 || s.Start.Sub(start)+s.Took > took {
			t.Errorf("stage %s at %v for %v lies outside the search (%v)", s.Name, s.Start.Sub(start), s.Took, took)
		}
	}
	if want := []string{library.StageFirst, library.StageRerank, library.StageSnippets}; !slices.Equal(names, want) {
		t.Fatalf("stages = %v, want %v", names, want)
	}
	if stages[1].Took < 5*time.Millisecond {
		t.Errorf("rerank stage took %v, want at least the reranker's 5ms", stages[1].Took)
	}
}
