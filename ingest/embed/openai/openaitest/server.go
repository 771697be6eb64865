// Package openaitest is a fake embeddings server for tests: it speaks the
// POST /v1/embeddings wire format of OpenAI and of Ollama's OpenAI-compatible
// endpoint on 127.0.0.1 (httptest), so the provider in embed/openai and the
// commands that use it are tested against real HTTP.
//
// Vectors come from Vector: deterministic, never zero, and texts sharing
// words are near, so a search over them finds what it should. A Server is
// safe for concurrent use; set a hook with SetHook to answer requests
// yourself (errors, hangs, mangled answers).
package openaitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Flavor is the server imitated.
type Flavor string

const (
	// OpenAI reports usage, honours "dimensions" and base64 encoding.
	OpenAI Flavor = "openai"
	// Ollama reports usage but ignores "dimensions".
	Ollama Flavor = "ollama"
	// OllamaOld is Ollama before it reported usage: no usage object, and
	// always JSON floats.
	OllamaOld Flavor = "ollama-old"
)

// DefaultDimensions is the vector length when Options.Dimensions is 0.
const DefaultDimensions = 256

// Options configures NewServer; the zero value is an OpenAI server with
// DefaultDimensions.
type Options struct {
	Flavor     Flavor        // "" = OpenAI
	Dimensions int           // the model's vector length; 0 = DefaultDimensions
	Latency    time.Duration // added to every embeddings request
	// Discard keeps only a count of requests and reuses encoded vectors
	// (benchmarks: the fake's own CPU shares the machine with the client).
	Discard bool
	Hook    Hook // see SetHook
}

// Hook may answer request n (counting from 0, probes included) itself and
// return true; returning false lets the server answer normally.
type Hook func(n int, req Request, w http.ResponseWriter, r *http.Request) bool

// Request is what the server received.
type Request struct {
	Input          []string
	Model          string
	Dimensions     int
	EncodingFormat string
	HasEncoding    bool // encoding_format was present
	Auth           string
	Path           string
	Query          string
	At             time.Time
}

// Item is one element of an answer's "data".
type Item struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	opts  Options
	count atomic.Int64

	mu       sync.Mutex
	hook     Hook
	reqs     []Request
	answered map[string]int    // inputs answered with 200
	vecJSON  map[string][]byte // Discard: encoded vector per text

	inflight, maxInflight atomic.Int64
}

// NewServer starts a fake on 127.0.0.1 and closes it when tb ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := Start(opts)
	tb.Cleanup(s.Close)
	return s
}

// Start starts a fake on 127.0.0.1; the caller closes it (for examples and
// other code without a testing.TB).
func Start(opts Options) *Server {
	if opts.Flavor == "" {
		opts.Flavor = OpenAI
	}
	if opts.Dimensions == 0 {
		opts.Dimensions = DefaultDimensions
	}
	s := &Server{opts: opts, hook: opts.Hook, answered: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is what a client is configured with (".../v1").
func (s *Server) BaseURL() string { return s.Server.URL + "/v1" }

// SetHook replaces the hook (nil removes it).
func (s *Server) SetHook(h Hook) {
	s.mu.Lock()
	s.hook = h
	s.mu.Unlock()
}

// Requests returns the embeddings requests received so far (none with
// Discard).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Count returns the number of embeddings requests received.
func (s *Server) Count() int { return int(s.count.Load()) }

// MaxInflight returns the most requests that were ever in flight at once.
func (s *Server) MaxInflight() int { return int(s.maxInflight.Load()) }

// Answered returns how often each input was answered with 200 through
// Answer (what a user pays for).
func (s *Server) Answered() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.answered))
	for k, v := range s.answered {
		out[k] = v
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	defer s.track()()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		// Both OpenAI and Ollama answer unknown routes with a 404.
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	req, ok := decode(w, r)
	if !ok {
		return
	}
	n := int(s.count.Add(1)) - 1
	s.mu.Lock()
	if !s.opts.Discard {
		s.reqs = append(s.reqs, req)
	}
	hook := s.hook
	s.mu.Unlock()
	if s.opts.Latency > 0 {
		select {
		case <-time.After(s.opts.Latency):
		case <-r.Context().Done():
			return
		}
	}
	if hook != nil && hook(n, req, w, r) {
		return
	}
	if s.opts.Discard && req.EncodingFormat == "" {
		s.answerCached(w, req)
		return
	}
	s.Answer(w, req, s.Embeddings(req))
}

// track counts a request in flight and returns its end.
func (s *Server) track() func() {
	cur := s.inflight.Add(1)
	for {
		m := s.maxInflight.Load()
		if cur <= m || s.maxInflight.CompareAndSwap(m, cur) {
			break
		}
	}
	return func() { s.inflight.Add(-1) }
}

func decode(w http.ResponseWriter, r *http.Request) (Request, bool) {
	var body struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat *string         `json:"encoding_format"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "could not parse JSON body")
		return Request{}, false
	}
	req := Request{Model: body.Model, Dimensions: body.Dimensions, Auth: r.Header.Get("Authorization"),
		Path: r.URL.Path, Query: r.URL.RawQuery, At: time.Now()}
	if body.EncodingFormat != nil {
		req.HasEncoding, req.EncodingFormat = true, *body.EncodingFormat
	}
	if err := json.Unmarshal(body.Input, &req.Input); err != nil {
		var one string
		if json.Unmarshal(body.Input, &one) != nil {
			WriteError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or array of strings")
			return Request{}, false
		}
		req.Input = []string{one}
	}
	for _, in := range req.Input {
		if in == "" {
			// OpenAI: "'$.input' is invalid."
			WriteError(w, http.StatusBadRequest, "invalid_request_error", "'$.input' is invalid.")
			return Request{}, false
		}
	}
	return req, true
}

// Embeddings returns the items the server would answer req with, in order.
func (s *Server) Embeddings(req Request) []Item {
	dims := s.opts.Dimensions
	if req.Dimensions > 0 && s.opts.Flavor == OpenAI {
		dims = req.Dimensions
	}
	items := make([]Item, len(req.Input))
	for i, in := range req.Input {
		items[i] = Item{Object: "embedding", Index: i, Embedding: Vector(in, dims)}
	}
	return items
}

// Answer writes a 200 answer to req holding items, as the flavor does
// (usage, base64), and counts the inputs of req as answered.
func (s *Server) Answer(w http.ResponseWriter, req Request, items []Item) {
	tokens := 0
	for _, in := range req.Input {
		tokens += len(strings.Fields(in)) + 1
	}
	var data any = items
	if req.EncodingFormat == "base64" && s.opts.Flavor != OllamaOld {
		data = Base64(items)
	}
	resp := map[string]any{"object": "list", "data": data, "model": req.Model}
	if s.opts.Flavor != OllamaOld {
		resp["usage"] = map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(resp); err != nil {
		return
	}
	s.mu.Lock()
	for _, in := range req.Input {
		s.answered[in]++
	}
	s.mu.Unlock()
}

// WriteError writes the error envelope OpenAI and Ollama both use.
func WriteError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
}
