package server

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/library"
)

// hostileString is a random string of what JSON escapes (quotes,
// backslashes, HTML, control characters, U+2028/9, invalid and truncated
// UTF-8) among plain ASCII and other non-ASCII text, in runs long and short
// enough to reach both the eight-byte and the byte-wise paths.
func hostileString(r *rand.Rand) string {
	parts := []string{"a", "plain words ", "0123456789abcdef", `"`, `\`, "<", ">", "&", "\n", "\t", "\b", "\f", "\r",
		"\x00", "\x01", "\x1f", "\x7f", "\u2028", "\u2029", "\u2027", "é", "日本", "\xff", "\xe2\x80", "\xc3", "😀", "…", "\u00a0"}
	var b strings.Builder
	for range r.IntN(30) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// TestJSONEncodingMatchesEncodingJSON checks appendJSONString and
// appendSearchJSON against json.Marshal on random hostile text.
func TestJSONEncodingMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		s := hostileString(r)
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal says %s", s, got, want)
		}
		if got := appendJSONString(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString([]byte(%q)) = %s, json.Marshal says %s", s, got, want)
		}
	}
	for n := range 200 {
		resp := library.SearchResponse{Results: []library.SearchResult{}}
		if n == 0 {
			resp.Results = nil
		}
		for range n % 3 {
			resp.Notes = append(resp.Notes, hostileString(r))
		}
		for range n % 12 {
			resp.Results = append(resp.Results, library.SearchResult{ID: hostileString(r), Title: hostileString(r),
				URL: hostileString(r), Text: hostileString(r), DocID: "not on the wire", Page: 3, Score: 1.5})
		}
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeResult(resp)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("encodeResult = %s, %v; json.Marshal says %s", got, err, want)
		}
	}
}

// FuzzJSONString: appendJSONString writes what json.Marshal writes, for
// any bytes.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a href=\"x\">&</a>", "\u2028\xff\xe2\x80", "0123456789\x00abcdef\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal says %s", s, got, want)
		}
	})
}
