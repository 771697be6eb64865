package openai

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

func TestOpenAIDimensions(t *testing.T) {
	f, o := newPair(t, 1536, func(c *Config) { c.Dimensions = 256 })
	got, err := o.Embed(context.Background(), texts(2))
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0]) != 256 || o.Identity().Dimensions != 256 {
		t.Fatalf("got %d dims, identity %d; want 256", len(got[0]), o.Identity().Dimensions)
	}
	if r := f.Requests()[0]; r.Dimensions != 256 {
		t.Errorf("request dimensions = %d, want 256", r.Dimensions)
	}

	// Ollama (older versions) ignores "dimensions": the probe must say so.
	ol := newFake(t, openaitest.Ollama, 768)
	_, err = New(context.Background(), Config{BaseURL: ol.BaseURL(), Model: "nomic-embed-text", Dimensions: 256,
		Logger: slog.New(slog.DiscardHandler)})
	if !errors.Is(err, embed.ErrBadVector) || !strings.Contains(err.Error(), "768 dimensions, want 256") || !strings.Contains(err.Error(), "probe") {
		t.Fatalf("err = %v, want a probe error about 768 vs 256 dimensions", err)
	}
}

func TestOpenAIConfigErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := New(ctx, Config{}); !errors.Is(err, ErrMissingAPIKey) {
		t.Errorf("no key for api.openai.com: err = %v, want ErrMissingAPIKey", err)
	}
	for _, cfg := range []Config{
		{BaseURL: "localhost:11434/v1"},
		{BaseURL: "ftp://127.0.0.1/v1"},
		{BaseURL: "http://127.0.0.1/v1", Dimensions: -1},
		{BaseURL: "http://127.0.0.1/v1", MaxInputTokens: 9000, MaxBatchTokens: 8000},
		{BaseURL: "http://127.0.0.1/v1", Concurrency: -2},
	} {
		if _, err := New(ctx, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
}

func TestOpenAIIdentityStripsSecrets(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	base := strings.Replace(f.BaseURL(), "http://", "http://user:hunter2@", 1) + "/?api-key=s3cret#frag"
	o := newTestOpenAI(t, base, nil)
	if got := o.Identity().BaseURL; got != f.BaseURL() {
		t.Errorf("Identity().BaseURL = %q, want %q", got, f.BaseURL())
	}
	r := f.Requests()[0]
	if r.Path != "/v1/embeddings" || r.Query != "api-key=s3cret" {
		t.Errorf("request path %q query %q; want the query kept on the wire", r.Path, r.Query)
	}
}

func TestOpenAIWrongPath(t *testing.T) {
	f := newFake(t, openaitest.Ollama, 8)
	// Forgetting /v1 is the classic Ollama mistake; the 404 body is plain text.
	_, err := New(context.Background(), Config{BaseURL: f.URL, Model: "nomic-embed-text",
		Logger: slog.New(slog.DiscardHandler)})
	if err == nil || !strings.Contains(err.Error(), "/v1") {
		t.Fatalf("err = %v, want a hint about /v1", err)
	}
}

func TestOpenAIEncodingDefault(t *testing.T) {
	o, err := newEmbedder(Config{APIKey: "sk"})
	if err != nil || o.cfg.EncodingFormat != "base64" {
		t.Errorf("api.openai.com: encoding %q, %v; want base64", o.cfg.EncodingFormat, err)
	}
	if o.cfg.MaxBatchInputs != 2048 || o.cfg.Timeout != time.Minute {
		t.Errorf("api.openai.com: batch %d, timeout %v; want 2048, 1m", o.cfg.MaxBatchInputs, o.cfg.Timeout)
	}
	o, err = newEmbedder(Config{BaseURL: "http://127.0.0.1:11434/v1"})
	if err != nil || o.cfg.EncodingFormat != "float" {
		t.Errorf("compatible server: encoding %q, %v; want float", o.cfg.EncodingFormat, err)
	}
	if o.cfg.MaxBatchInputs != 64 || o.cfg.Timeout != 2*time.Minute {
		t.Errorf("compatible server: batch %d, timeout %v; want 64, 2m", o.cfg.MaxBatchInputs, o.cfg.Timeout)
	}
	f := newFake(t, openaitest.Ollama, 8)
	newTestOpenAI(t, f.BaseURL(), nil)
	if r := f.Requests()[0]; r.HasEncoding {
		t.Errorf("encoding_format sent to a compatible server: %q", r.EncodingFormat)
	}
	if _, err := newEmbedder(Config{BaseURL: "http://127.0.0.1/v1", EncodingFormat: "int8"}); !errors.Is(err, ErrConfig) {
		t.Errorf("encoding int8: err = %v, want ErrConfig", err)
	}
}

func TestOpenAISecretsNotInErrors(t *testing.T) {
	addr := closedAddr(t)
	var logs strings.Builder
	_, err := New(context.Background(), Config{
		BaseURL: "http://bob:pa55word@" + addr + "/v1?api-key=s3cret", Model: "m", APIKey: "sk-live-123",
		RetryBaseDelay: time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err == nil {
		t.Fatal("want an error from an unreachable server")
	}
	for _, secret := range []string{"s3cret", "pa55word", "sk-live-123"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("secret %q leaked:\nerr: %v\nlogs: %s", secret, err, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Errorf("no retry logged: %q", logs.String())
	}
}
