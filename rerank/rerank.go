// Package rerank speaks the HTTP wire formats of the rerank services people
// run: Cohere, Jina / llama.cpp server / vLLM, Hugging Face TEI and Voyage.
// A Client scores documents against a query; the library (library.Reranker)
// decides what to do with the scores. It is a leaf: it imports only the
// standard library, so that the core can be handed a Client without knowing
// any provider, as it is handed an embedder.
package rerank

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// The wire formats, the values of --rerank-format. Each comment says where
// its shape was checked; rerank/testdata holds the published examples the
// tests byte-check against (rerank/testdata/README.md cites them).
const (
	// Cohere POST /v2/rerank and /v1/rerank (the two are the same on the
	// wire for what mcpvec sends): {model, query, top_n, documents} →
	// {id, results:[{index, relevance_score}], meta} (docs.cohere.com
	// Rerank API v2 and v1 references).
	Cohere = "cohere"
	// Jina POST /v1/rerank, which llama.cpp server (also at /rerank,
	// /reranking, /v1/reranking) and vLLM serve too: the Cohere request;
	// the answer {model, usage, results:[{index, relevance_score,
	// document?}]}, llama.cpp's sorted by score (Jina's reranker API;
	// llama.cpp tools/server/README.md and format_response_rerank).
	Jina = "jina"
	// TEI is Hugging Face text-embeddings-inference POST /rerank: {query,
	// texts, truncate} → [{index, text?, score}] (TEI's
	// router/src/http/types.rs RerankRequest and Rank). TEI refuses more
	// than --max-client-batch-size texts (32 by default): the client
	// sends TEIBatch at a time.
	TEI = "tei"
	// Voyage POST /v1/rerank: {query, documents, model, top_k} →
	// {object, data:[{relevance_score, index}], model, usage}
	// (docs.voyageai.com reranker API reference).
	Voyage = "voyage"
)

// TEIBatch is how many texts one TEI request carries: TEI answers 413 to
// more than its --max-client-batch-size, whose default is 32.
const TEIBatch = 32

// ErrMalformed is wrapped by every error about an answer that is not a
// score for each document sent exactly once.
var ErrMalformed = errors.New("malformed rerank answer")

// Client scores documents against a query over HTTP. Its fields are set
// before first use and not changed; it is then safe for concurrent use.
type Client struct {
	URL    string // the endpoint, e.g. http://127.0.0.1:8080/v1/rerank
	Model  string // sent by the formats that name a model
	Format string // Cohere, Jina, TEI or Voyage; "" means FormatOf(URL)
	APIKey string // sent as a Bearer token when not ""
	HTTP   *http.Client
}

// FormatOf guesses the wire format from an endpoint URL: a host of
// voyageai.com is Voyage; cohere.com or cohere.ai, or a path ending
// /v2/rerank, Cohere; any other path ending /v1/rerank Jina (llama.cpp
// server, vLLM; the same wire as Cohere's v1), and /rerank TEI. It returns
// an error for a URL it cannot place.
func FormatOf(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("rerank url %q: not an http(s) address", endpoint)
	}
	p, host := strings.TrimSuffix(u.Path, "/"), u.Hostname()
	cohere := host == "cohere.com" || host == "cohere.ai" ||
		strings.HasSuffix(host, ".cohere.com") || strings.HasSuffix(host, ".cohere.ai")
	switch {
	case host == "voyageai.com" || strings.HasSuffix(host, ".voyageai.com"):
		return Voyage, nil
	case strings.HasSuffix(p, "/v2/rerank"), cohere && strings.HasSuffix(p, "/v1/rerank"):
		return Cohere, nil
	case strings.HasSuffix(p, "/v1/rerank"):
		return Jina, nil
	case strings.HasSuffix(p, "/rerank"):
		return TEI, nil
	}
	return "", fmt.Errorf("rerank url %q: path does not end in /rerank; name the format (--rerank-format cohere, jina, tei or voyage)", endpoint)
}

// Name identifies the reranker for caches, logs and pages: format, model
// and URL without what may hold a secret (Redact).
func (c *Client) Name() string { return c.format() + ":" + c.Model + "@" + Redact(c.URL) }

// Redact returns endpoint without the parts that may carry a secret: user
// and password, query and fragment.
func Redact(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(not a url)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

func (c *Client) format() string {
	if c.Format != "" {
		return c.Format
	}
	f, _ := FormatOf(c.URL)
	return f
}

// Rerank returns one score per document, in the documents' order (higher
// is more relevant). TEI is asked TEIBatch documents at a time, the
// batches at once. Errors: the transport's, an HTTP status other than 200
// (with the start of the body), or one wrapping ErrMalformed.
func (c *Client) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	f := c.format()
	if f != TEI || len(docs) <= TEIBatch {
		return c.rerankOnce(ctx, f, query, docs)
	}
	scores := make([]float64, len(docs))
	errs := make([]error, (len(docs)+TEIBatch-1)/TEIBatch)
	var wg sync.WaitGroup
	for b := range errs {
		lo, hi := b*TEIBatch, min(len(docs), (b+1)*TEIBatch)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := c.rerankOnce(ctx, f, query, docs[lo:hi])
			copy(scores[lo:hi], s)
			errs[b] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return scores, nil
}

// rerankOnce asks for the scores of docs in one request of format f.
func (c *Client) rerankOnce(ctx context.Context, f, query string, docs []string) ([]float64, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	body, err := requestBody(f, c.Model, query, docs)
	if err != nil {
		return nil, err
	}
	raw, err := c.post(ctx, body)
	if err != nil {
		return nil, err
	}
	return parseScores(f, raw, len(docs))
}

// post sends body and returns the answer's body, at most 8 MiB of it.
func (c *Client) post(ctx context.Context, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("rerank request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rerank: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("rerank: read answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("rerank: %s: %.200s", resp.Status, raw)
	}
	return raw, nil
}
