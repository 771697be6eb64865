package openaitest

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
)

// Vector is the unit vector the server gives text: a bag of its lowercase
// words hashed into dims-1 slots, a constant component (so no vector is
// zero) and a little noise seeded by the whole text (so different texts
// differ even when their words collide in few dimensions). It is
// deterministic, and texts sharing words are near.
func Vector(text string, dims int) []float32 {
	v := make([]float32, dims)
	if dims == 0 {
		return v
	}
	whole := fnv.New64a()
	_, _ = whole.Write([]byte(text))
	rng := rand.New(rand.NewPCG(whole.Sum64(), 42))
	for i := range v {
		v[i] = float32(0.01 * rng.NormFloat64())
	}
	v[0] += 0.05
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9')
	})
	for _, w := range words {
		if dims == 1 {
			break
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte(w))
		v[1+h.Sum32()%uint32(dims-1)]++
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Base64 encodes items as OpenAI does for encoding_format "base64":
// little-endian float32s, standard base64.
func Base64(items []Item) []map[string]any {
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

// answerCached is Answer for benchmarks: the same passages come back every
// iteration, so their encoded vectors are reused and the fake's own CPU
// stays small. It reports one token and counts nothing as answered.
func (s *Server) answerCached(w http.ResponseWriter, req Request) {
	var buf bytes.Buffer
	buf.WriteString(`{"object":"list","data":[`)
	for i, in := range req.Input {
		s.mu.Lock()
		if s.vecJSON == nil {
			s.vecJSON = make(map[string][]byte)
		}
		vj, ok := s.vecJSON[in]
		if !ok {
			vj, _ = json.Marshal(Vector(in, s.opts.Dimensions))
			s.vecJSON[in] = vj
		}
		s.mu.Unlock()
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"object":"embedding","index":%d,"embedding":%s}`, i, vj)
	}
	fmt.Fprintf(&buf, `],"model":%q,"usage":{"prompt_tokens":1,"total_tokens":1}}`, req.Model)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(buf.Bytes())
}
