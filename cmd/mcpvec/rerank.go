package main

import (
	"flag"
	"fmt"
	"net/http"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/rerank"
)

// rerankFlags are the rerank stage's flags of serve and search.
type rerankFlags struct{ url, model, format string }

// registerRerank adds --rerank, --rerank-model and --rerank-format to fs,
// defaulting to $MCPVEC_RERANK and $MCPVEC_RERANK_MODEL.
func registerRerank(fs *flag.FlagSet, e *env) *rerankFlags {
	f := new(rerankFlags)
	fs.StringVar(&f.url, "rerank", e.getenv("MCPVEC_RERANK"), "rerank the best 50 results with the service at URL: …/v2/rerank (Cohere), …/v1/rerank (Jina, llama.cpp server, vLLM; Voyage at voyageai.com), …/rerank (Hugging Face TEI); API key $MCPVEC_RERANK_API_KEY ($MCPVEC_RERANK; default off)")
	fs.StringVar(&f.model, "rerank-model", e.getenv("MCPVEC_RERANK_MODEL"), "model the rerank service is asked for ($MCPVEC_RERANK_MODEL)")
	fs.StringVar(&f.format, "rerank-format", "", "wire format of --rerank: cohere, jina, tei or voyage (default: from the URL)")
	return f
}

// options returns the rerank stage the flags ask for; its Reranker is nil
// when --rerank is not set. Errors: a URL or format it cannot use.
func (f *rerankFlags) options(e *env) (library.RerankOptions, error) {
	if f.url == "" {
		return library.RerankOptions{}, nil
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
	return library.RerankOptions{Reranker: c}, nil
}

// reranked returns lib with the rerank stage o, or lib itself when o is off.
func reranked(lib *library.Library, o library.RerankOptions) *library.Library {
	if o.Reranker == nil {
		return lib
	}
	return lib.WithRerank(o)
}

// announceRerank says on stderr, at serve's start, that results are
// reranked and by what; nothing when the stage is off.
func announceRerank(e *env, lib *library.Library) {
	if name, n := lib.RerankOn(); name != "" {
		fmt.Fprintf(e.stderr, "rerank: on, the best %d results by %s\n", n, name)
	}
}

// parseServe parses serve's arguments and returns its rerank stage.
func parseServe(fs *flag.FlagSet, args []string, e *env, wf *watchFlags, rf *rerankFlags) (library.RerankOptions, error) {
	if err := wf.parse(fs, args, e); err != nil {
		return library.RerankOptions{}, err
	}
	return rf.options(e)
}
