// Package ollamatest is a fake Ollama for tests: on 127.0.0.1 (httptest) it
// speaks the documented native API an embedder uses — GET /api/tags,
// POST /api/embed and Ollama's error bodies ({"error": "..."}, 404 for a
// model not pulled, gin's plain "404 page not found" for unknown paths) —
// so the provider in embed/ollama and the commands that use it are tested
// against real HTTP.
//
// Vectors are openaitest.Vector's: deterministic, never zero, and texts
// sharing words are near. A Server is safe for concurrent use; a hook set
// with SetHook answers requests itself (errors, hangs, mangled answers).
package ollamatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

// DefaultDimensions is nomic-embed-text's vector length, the default of
// Options.Dimensions.
const DefaultDimensions = 768

// DefaultModels are the models /api/tags lists when Options.Models is nil.
var DefaultModels = []string{"nomic-embed-text:latest", "llama3.2:3b"}

// Options configures NewServer.
type Options struct {
	Models     []string      // names /api/tags lists (with their tags); nil = DefaultModels
	Dimensions int           // the vector length; 0 = DefaultDimensions
	Latency    time.Duration // added to every /api/embed request
}

// Hook may answer request n (counting from 0, /api/tags included) itself
// and return true; false lets the server answer normally.
type Hook func(n int, req Request, w http.ResponseWriter, r *http.Request) bool

// Request is what the server received. Body holds the raw JSON of a POST.
type Request struct {
	Method, Path string
	Body         []byte
	Model        string
	Input        []string
	At           time.Time
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server
	opts Options

	mu     sync.Mutex
	models []string
	hook   Hook
	reqs   []Request
}

// NewServer starts a fake on 127.0.0.1, closed when tb ends.
func NewServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.Models == nil {
		opts.Models = DefaultModels
	}
	if opts.Dimensions == 0 {
		opts.Dimensions = DefaultDimensions
	}
	s := &Server{opts: opts, models: append([]string(nil), opts.Models...)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(s.Close)
	return s
}

// Host is the server's host:port, an OLLAMA_HOST value.
func (s *Server) Host() string { return strings.TrimPrefix(s.URL, "http://") }

// SetHook installs h (nil removes it).
func (s *Server) SetHook(h Hook) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = h
}

// SetModels replaces the models the server has (as after `ollama rm`).
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = names
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Embeds returns the /api/embed requests received so far.
func (s *Server) Embeds() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Path == "/api/embed" {
			out = append(out, r)
		}
	}
	return out
}

// Vector is the vector the server gives text.
func (s *Server) Vector(text string) []float32 { return openaitest.Vector(text, s.opts.Dimensions) }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{Method: r.Method, Path: r.URL.Path, Body: body, At: time.Now()}
	var in struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if json.Unmarshal(body, &in) == nil {
		req.Model, req.Input = in.Model, inputs(in.Input)
	}
	s.mu.Lock()
	n, hook := len(s.reqs), s.hook
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if hook != nil && hook(n, req, w, r) {
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/tags":
		s.tags(w)
	case r.Method == http.MethodPost && r.URL.Path == "/api/embed":
		s.embed(w, r, req)
	default:
		// gin's answer to a route it does not have.
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "404 page not found")
	}
}

// inputs reads "input": a string or an array of strings.
func inputs(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

func (s *Server) tags(w http.ResponseWriter) {
	s.mu.Lock()
	names := append([]string(nil), s.models...)
	s.mu.Unlock()
	models := make([]map[string]any, len(names))
	for i, n := range names {
		models[i] = map[string]any{
			"name": n, "model": n, "modified_at": "2026-11-04T14:56:49.277302595-07:00", "size": 274302450,
			"digest": fmt.Sprintf("%064x", i+1),
			"details": map[string]any{"parent_model": "", "format": "gguf", "family": "nomic-bert",
				"families": []string{"nomic-bert"}, "parameter_size": "137M", "quantization_level": "F16"},
		}
	}
	WriteJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (s *Server) embed(w http.ResponseWriter, r *http.Request, req Request) {
	if !s.has(req.Model) {
		WriteError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if s.opts.Latency > 0 {
		select {
		case <-time.After(s.opts.Latency):
		case <-r.Context().Done():
			return
		}
	}
	vecs := make([][]float32, len(req.Input))
	tokens := 0
	for i, in := range req.Input {
		vecs[i] = s.Vector(in)
		tokens += len(strings.Fields(in)) + 1
	}
	WriteJSON(w, http.StatusOK, map[string]any{"model": req.Model, "embeddings": vecs,
		"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": tokens})
}

// has reports whether the server has model, with Ollama's ":latest" rule.
func (s *Server) has(model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if m == model || m == model+":latest" {
			return true
		}
	}
	return false
}

// WriteJSON answers v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteError answers Ollama's error body {"error": msg} with status.
func WriteError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, map[string]string{"error": msg})
}
