package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/rerank"
)

// rerankFlags are the rerank stage's flags of serve and search.
type rerankFlags struct {
	url, model, format string
	top                int
	timeout            time.Duration
	envErr             error // a malformed $MCPVEC_RERANK_TOP or _TIMEOUT
}

// The bounds of --rerank-top and --rerank-timeout.
const (
	maxRerankTop     = 1000
	maxRerankTimeout = 5 * time.Minute
)

// registerRerank adds --rerank, --rerank-model, --rerank-format,
// --rerank-top and --rerank-timeout to fs, defaulting to $MCPVEC_RERANK,
// $MCPVEC_RERANK_MODEL, $MCPVEC_RERANK_TOP and $MCPVEC_RERANK_TIMEOUT.
func registerRerank(fs *flag.FlagSet, e *env) *rerankFlags {
	f := &rerankFlags{top: 50, timeout: 2 * time.Second}
	if v := e.getenv("MCPVEC_RERANK_TOP"); v != "" {
		n, err := strconv.Atoi(v)
		f.top, f.envErr = n, errors.Join(f.envErr, errIf(err, "$MCPVEC_RERANK_TOP %q: want a number", v))
	}
	if v := e.getenv("MCPVEC_RERANK_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		f.timeout, f.envErr = d, errors.Join(f.envErr, errIf(err, "$MCPVEC_RERANK_TIMEOUT %q: want a duration such as 2s or 500ms", v))
	}
	fs.StringVar(&f.url, "rerank", e.getenv("MCPVEC_RERANK"), "rerank the best results with the service at URL: …/v2/rerank (Cohere), …/v1/rerank (Jina, llama.cpp server, vLLM; Cohere v1 at cohere.com, Voyage at voyageai.com), …/rerank (Hugging Face TEI); API key $MCPVEC_RERANK_API_KEY ($MCPVEC_RERANK; default off)")
	fs.StringVar(&f.model, "rerank-model", e.getenv("MCPVEC_RERANK_MODEL"), "model the rerank service is asked for ($MCPVEC_RERANK_MODEL)")
	fs.StringVar(&f.format, "rerank-format", "", "wire format of --rerank: cohere, jina, tei or voyage (default: from the URL)")
	fs.IntVar(&f.top, "rerank-top", f.top, "how many of the best first-stage results are reranked, 1-1000 ($MCPVEC_RERANK_TOP)")
	fs.DurationVar(&f.timeout, "rerank-timeout", f.timeout, "how long a search waits for the reranker before it answers in first-stage order ($MCPVEC_RERANK_TIMEOUT)")
	return f
}

// errIf returns nil when err is nil, else the message format makes.
func errIf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format, args...)
}

// options returns the rerank stage the flags ask for; its Reranker is nil
// when --rerank is not set. Errors: a URL, format, top N or timeout it
// cannot use.
func (f *rerankFlags) options(e *env) (library.RerankOptions, error) {
	if f.url == "" {
		return library.RerankOptions{}, nil
	}
	if f.envErr != nil {
		return library.RerankOptions{}, f.envErr
	}
	if f.top < 1 || f.top > maxRerankTop {
		return library.RerankOptions{}, fmt.Errorf("--rerank-top %d: want 1 to %d", f.top, maxRerankTop)
	}
	if f.timeout <= 0 || f.timeout > maxRerankTimeout {
		return library.RerankOptions{}, fmt.Errorf("--rerank-timeout %v: want more than 0 and at most %v", f.timeout, maxRerankTimeout)
	}
	format := f.format
	if format == "" {
		var err error
		if format, err = rerank.FormatOf(f.url); err != nil {
			return library.RerankOptions{}, fmt.Errorf("--rerank: %w", err)
		}
	}
	switch format {
	case rerank.Cohere, rerank.Jina, rerank.TEI, rerank.Voyage:
	default:
		return library.RerankOptions{}, fmt.Errorf("--rerank-format %q: want cohere, jina, tei or voyage", format)
	}
	c := &rerank.Client{URL: f.url, Model: f.model, Format: format,
		APIKey: e.getenv("MCPVEC_RERANK_API_KEY"), HTTP: &http.Client{}}
	return library.RerankOptions{Reranker: c, TopN: f.top, Timeout: f.timeout}, nil
}

// reranked returns lib with the rerank stage o, or lib itself when o is off.
func reranked(lib *library.Library, o library.RerankOptions) *library.Library {
	if o.Reranker == nil {
		return lib
	}
	return lib.WithRerank(o)
}

// parseServe parses serve's arguments and returns its rerank stage.
func parseServe(fs *flag.FlagSet, args []string, e *env, wf *watchFlags, rf *rerankFlags) (library.RerankOptions, error) {
	if err := wf.parse(fs, args, e); err != nil {
		return library.RerankOptions{}, err
	}
	return rf.options(e)
}
