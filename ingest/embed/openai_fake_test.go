package embed

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// openaiFakeRequest is what the fake embeddings server received.
type openaiFakeRequest struct {
	Input          []string
	Model          string
	Dimensions     int
	EncodingFormat string
	HasEncoding    bool
	Auth           string
	Path           string
	Query          string
	At             time.Time
}

// openaiFakeServer speaks the /v1/embeddings wire format of OpenAI ("openai") or
// of Ollama's OpenAI-compatible endpoint ("ollama", "ollama-old" without a
// usage object, as Ollama sent before it reported prompt_eval_count).
type openaiFakeServer struct {
	*httptest.Server
	flavor  string
	dims    int
	latency time.Duration
	discard bool // keep only a count of requests (benchmarks)
	count   atomic.Int64
	// hook, when set, may answer request n (0-based) itself and return true.
	hook func(n int, req openaiFakeRequest, w http.ResponseWriter, r *http.Request) bool

	mu          sync.Mutex
	reqs        []openaiFakeRequest
	vecJSON     map[string][]byte // discard mode: encoded vector per text
	inflight    atomic.Int64
	maxInflight atomic.Int64
}

func newOpenaiFakeServer(tb testing.TB, flavor string, dims int) *openaiFakeServer {
	tb.Helper()
	f := &openaiFakeServer{flavor: flavor, dims: dims}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	tb.Cleanup(f.Close)
	return f
}

// URL returns the base URL a client is configured with (".../v1").
func (f *openaiFakeServer) BaseURL() string { return f.Server.URL + "/v1" }

func (f *openaiFakeServer) requests() []openaiFakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]openaiFakeRequest(nil), f.reqs...)
}

func (f *openaiFakeServer) serve(w http.ResponseWriter, r *http.Request) {
	cur := f.inflight.Add(1)
	defer f.inflight.Add(-1)
	for {
		m := f.maxInflight.Load()
		if cur <= m || f.maxInflight.CompareAndSwap(m, cur) {
			break
		}
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		// Both OpenAI and Ollama answer unknown routes with a 404.
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	req, ok := f.decode(w, r)
	if !ok {
		return
	}
	n := int(f.count.Add(1)) - 1
	if !f.discard {
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
	}
	if f.latency > 0 {
		select {
		case <-time.After(f.latency):
		case <-r.Context().Done():
			return
		}
	}
	if f.hook != nil && f.hook(n, req, w, r) {
		return
	}
	if f.discard && req.EncodingFormat == "" {
		f.answerCached(w, req)
		return
	}
	f.answer(w, req, f.embeddings(req))
}

func (f *openaiFakeServer) decode(w http.ResponseWriter, r *http.Request) (openaiFakeRequest, bool) {
	var body struct {
		Input          json.RawMessage `json:"input"`
		Model          string          `json:"model"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat *string         `json:"encoding_format"`
	}
	raw, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(raw, &body); err != nil {
		openaiFakeError(w, http.StatusBadRequest, "invalid_request_error", "could not parse JSON body")
		return openaiFakeRequest{}, false
	}
	req := openaiFakeRequest{Model: body.Model, Dimensions: body.Dimensions, Auth: r.Header.Get("Authorization"),
		Path: r.URL.Path, Query: r.URL.RawQuery, At: time.Now()}
	if body.EncodingFormat != nil {
		req.HasEncoding, req.EncodingFormat = true, *body.EncodingFormat
	}
	if err := json.Unmarshal(body.Input, &req.Input); err != nil {
		var one string
		if json.Unmarshal(body.Input, &one) != nil {
			openaiFakeError(w, http.StatusBadRequest, "invalid_request_error", "input must be a string or array of strings")
			return openaiFakeRequest{}, false
		}
		req.Input = []string{one}
	}
	for _, in := range req.Input {
		if in == "" {
			// OpenAI: "'$.input' is invalid."
			openaiFakeError(w, http.StatusBadRequest, "invalid_request_error", "'$.input' is invalid.")
			return openaiFakeRequest{}, false
		}
	}
	return req, true
}

// openaiFakeItem is one element of "data".
type openaiFakeItem struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

func (f *openaiFakeServer) embeddings(req openaiFakeRequest) []openaiFakeItem {
	dims := f.dims
	if req.Dimensions > 0 && f.flavor == "openai" {
		dims = req.Dimensions
	}
	items := make([]openaiFakeItem, len(req.Input))
	for i, in := range req.Input {
		items[i] = openaiFakeItem{Object: "embedding", Index: i, Embedding: openaiFakeVec(in, dims)}
	}
	return items
}

func (f *openaiFakeServer) answer(w http.ResponseWriter, req openaiFakeRequest, items []openaiFakeItem) {
	tokens := 0
	for _, in := range req.Input {
		tokens += len(in)/4 + 1
	}
	var data any = items
	if req.EncodingFormat == "base64" && f.flavor != "ollama-old" {
		data = openaiFakeBase64(items)
	}
	resp := map[string]any{"object": "list", "data": data, "model": req.Model}
	switch f.flavor {
	case "openai":
		resp["usage"] = map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}
	case "ollama":
		resp["usage"] = map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}
	case "ollama-old":
		// no usage object at all
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// openaiFakeError writes the error envelope OpenAI and Ollama both use.
func openaiFakeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
}

// openaiFakeVec is the deterministic unit vector the fake server gives text.
func openaiFakeVec(text string, dims int) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text))
	rng := rand.New(rand.NewPCG(h.Sum64(), 42))
	v := make([]float32, dims)
	var sum float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		sum += float64(v[i]) * float64(v[i])
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// openaiFakeBase64 encodes items as OpenAI does for encoding_format
// "base64": little-endian float32s, standard base64.
func openaiFakeBase64(items []openaiFakeItem) []map[string]any {
	out := make([]map[string]any, len(items))
	for i, it := range items {
		buf := make([]byte, 4*len(it.Embedding))
		for j, x := range it.Embedding {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
		}
		out[i] = map[string]any{"object": "embedding", "index": it.Index, "embedding": base64.StdEncoding.EncodeToString(buf)}
	}
	return out
}

// answerCached is answer for benchmarks: the same passages come back every
// iteration, so their encoded vectors are reused and the fake server's own
// CPU (which shares the machine with the client) stays small.
func (f *openaiFakeServer) answerCached(w http.ResponseWriter, req openaiFakeRequest) {
	var buf bytes.Buffer
	buf.WriteString(`{"object":"list","data":[`)
	for i, in := range req.Input {
		f.mu.Lock()
		if f.vecJSON == nil {
			f.vecJSON = make(map[string][]byte)
		}
		vj, ok := f.vecJSON[in]
		if !ok {
			vj, _ = json.Marshal(openaiFakeVec(in, f.dims))
			f.vecJSON[in] = vj
		}
		f.mu.Unlock()
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"object":"embedding","index":%d,"embedding":%s}`, i, vj)
	}
	fmt.Fprintf(&buf, `],"model":%q,"usage":{"prompt_tokens":1,"total_tokens":1}}`, req.Model)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(buf.Bytes())
}
