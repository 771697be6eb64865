package library

import (
	"context"
	"time"
)

// Stage names reported to a StageFunc.
const (
	// StageFirst is the first stage: embedding the query, the backend's
	// candidates and their fusion.
	StageFirst = "first_stage"
	// StageRerank is the rerank stage, when the library has one.
	StageRerank = "rerank"
	// StageSnippets picks the results and cuts their snippets.
	StageSnippets = "snippets"
)

// Stage is one timed step of a Search: Name is one of the Stage* names,
// Start when it began and Took how long it ran. A search that ranks a
// longer list after a short one ran out reports a stage more than once.
type Stage struct {
	Name  string
	Start time.Time
	Took  time.Duration
}

// StageFunc hears the stages of one Search as each ends, in order, from
// the goroutine that called Search.
type StageFunc func(Stage)

type stageKey struct{}

// WithStages returns ctx carrying fn: a Search given that context reports
// its stages to fn. It is how a caller times a search without the core
// knowing of metrics or traces; a context without one costs nothing.
func WithStages(ctx context.Context, fn StageFunc) context.Context {
	return context.WithValue(ctx, stageKey{}, fn)
}

// stagesOf returns the StageFunc in ctx, or nil.
func stagesOf(ctx context.Context) StageFunc {
	fn, _ := ctx.Value(stageKey{}).(StageFunc)
	return fn
}

// timed starts the stage name and returns what ends it (reporting it to
// fn); with nobody listening both cost nothing.
func (fn StageFunc) timed(name string) (end func()) {
	if fn == nil {
		return nop
	}
	start := time.Now()
	return func() { fn(Stage{Name: name, Start: start, Took: time.Since(start)}) }
}

func nop() {}
