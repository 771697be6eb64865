package ollama

import (
	"errors"
	"testing"
)

// TestBaseURLTakesOllamaHostForms: every form Ollama's OLLAMA_HOST takes
// becomes the URL to connect to; an address a server binds to (0.0.0.0)
// means this machine.
func TestBaseURLTakesOllamaHostForms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"  ", "http://127.0.0.1:11434"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"0.0.0.0:11435", "http://127.0.0.1:11435"},
		{":11500", "http://127.0.0.1:11500"},
		{"[::]:11434", "http://127.0.0.1:11434"},
		{"localhost", "http://localhost:11434"},
		{"gpu-box:8080", "http://gpu-box:8080"},
		{"[::1]:11434", "http://[::1]:11434"},
		{"::1", "http://[::1]:11434"},
		{"http://gpu-box", "http://gpu-box:80"},
		{"https://ollama.example.com", "https://ollama.example.com:443"},
		{"HTTP://127.0.0.1:11434/", "http://127.0.0.1:11434"},
		{"http://localhost:11434/v1", "http://localhost:11434"},
		{"http://localhost:11434/v1/", "http://localhost:11434"},
		{"https://proxy.example.com/ollama", "https://proxy.example.com:443/ollama"},
		{"https://proxy.example.com/ollama/api", "https://proxy.example.com:443/ollama"},
	} {
		got, err := BaseURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("BaseURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://host", "host:0", "host:99999", "host:port", "http://user:pw@host:11434", "http://host:11434/?x=1"} {
		if got, err := BaseURL(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("BaseURL(%q) = %q, %v; want ErrConfig", bad, got, err)
		}
	}
}

func TestCanonicalModel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nomic-embed-text", "nomic-embed-text:latest"},
		{"nomic-embed-text:latest", "nomic-embed-text:latest"},
		{"Nomic-Embed-Text", "nomic-embed-text:latest"},
		{"all-minilm:l6-v2", "all-minilm:l6-v2"},
		{"registry.local:5000/team/embed", "registry.local:5000/team/embed:latest"},
		{"hf.co/org/model:Q8_0", "hf.co/org/model:q8_0"},
		{"", ""},
	} {
		if got := canonicalModel(tc.in); got != tc.want {
			t.Errorf("canonicalModel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
