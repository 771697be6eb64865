package openai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/embed/openai/openaitest"
)

func TestOpenAIWireOpenAI(t *testing.T) {
	f, o := newPair(t, 64, func(c *Config) { c.MaxBatchInputs = 3; c.Concurrency = 1 })
	in := texts(10)
	mustEmbed(t, o, in, 64)
	reqs := f.Requests()
	if got, want := len(reqs), 1+4; got != want { // probe + ceil(10/3)
		t.Fatalf("requests = %d, want %d", got, want)
	}
	for _, r := range reqs {
		if r.Auth != "Bearer sk-test" || r.Model != "text-embedding-3-small" || r.HasEncoding || r.Dimensions != 0 {
			t.Errorf("request = %+v; want bearer key, model, no encoding_format, no dimensions", r)
		}
	}
	if id := o.Identity(); id != (embed.Identity{Provider: "openai", Model: "text-embedding-3-small", Dimensions: 64, BaseURL: f.BaseURL()}) {
		t.Errorf("Identity = %+v", id)
	}
	u := o.Usage()
	if u.Requests != 5 || u.Retries != 0 || u.Inputs != 11 || u.ReportedTokens == 0 || u.Tokens() != u.ReportedTokens {
		t.Errorf("Usage = %+v", u)
	}
}

func TestOpenAIWireOllama(t *testing.T) {
	for _, flavor := range []string{"ollama", "ollama-old"} {
		t.Run(flavor, func(t *testing.T) {
			f := newFake(t, openaitest.Flavor(flavor), 768)
			o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.APIKey = ""; c.Model = "nomic-embed-text" })
			in := texts(5)
			mustEmbed(t, o, in, 768)
			for _, r := range f.Requests() {
				if r.Auth != "" || r.Model != "nomic-embed-text" {
					t.Errorf("request auth=%q model=%q; want no auth header and the model", r.Auth, r.Model)
				}
			}
			u := o.Usage()
			if flavor == "ollama-old" && (u.ReportedTokens != 0 || u.Tokens() != u.EstimatedTokens || u.Tokens() == 0) {
				t.Errorf("no usage from server: Usage = %+v, want the estimate", u)
			}
			if flavor == "ollama" && u.ReportedTokens == 0 {
				t.Errorf("Usage = %+v, want reported tokens", u)
			}
			if d := o.Identity().Dimensions; d != 768 {
				t.Errorf("dimensions = %d, want 768 learned by probe", d)
			}
		})
	}
}

func TestOpenAIOutOfOrderIndex(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 16)
	mangle(f, always, func(items []openaitest.Item) []openaitest.Item { slices.Reverse(items); return items })
	o := newTestOpenAI(t, f.BaseURL(), nil)
	in := texts(7)
	mustEmbed(t, o, in, 16)
}

func TestOpenAIPartialBatchResent(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 16)
	// Answer only the even-numbered inputs of the first Embed request.
	mangle(f, only(1), func(all []openaitest.Item) (items []openaitest.Item) {
		for _, it := range all {
			if it.Index%2 == 0 {
				items = append(items, it)
			}
		}
		return items
	})
	o := newTestOpenAI(t, f.BaseURL(), nil)
	in := texts(6)
	mustEmbed(t, o, in, 16)
	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want probe + partial + rest", len(reqs))
	}
	if want := []string{in[1], in[3], in[5]}; !slices.Equal(reqs[2].Input, want) {
		t.Errorf("re-sent %q, want only the missing %q", reqs[2].Input, want)
	}
}

func TestOpenAIEmptyAnswerExhaustsRetries(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 16)
	mangle(f, always, func([]openaitest.Item) []openaitest.Item { return nil })
	o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxRetries = 2 })
	_, err := o.Embed(context.Background(), texts(3))
	if !errors.Is(err, ErrRetriesExhausted) || !errors.Is(err, ErrBadResponse) {
		t.Fatalf("err = %v, want ErrRetriesExhausted and ErrBadResponse", err)
	}
	if got := len(f.Requests()); got != 3 {
		t.Errorf("requests = %d, want 1 + 2 retries", got)
	}
}

func TestOpenAIBadIndex(t *testing.T) {
	for name, change := range map[string]func([]openaitest.Item) []openaitest.Item{
		"duplicate":    func(it []openaitest.Item) []openaitest.Item { it[1].Index = 2; return it },
		"out of range": func(it []openaitest.Item) []openaitest.Item { it[0].Index = 99; return it },
		"too many":     func(it []openaitest.Item) []openaitest.Item { return append(it, it[0]) },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, openaitest.OpenAI, 8)
			mangle(f, always, change)
			o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true })
			_, err := o.Embed(context.Background(), texts(3))
			if !errors.Is(err, ErrBadResponse) {
				t.Fatalf("err = %v, want ErrBadResponse", err)
			}
			if got := len(f.Requests()); got != 1 {
				t.Errorf("requests = %d; a malformed index is not retried", got)
			}
		})
	}
}

func TestOpenAIAllZeroIndexReadPositionally(t *testing.T) {
	f := newFake(t, openaitest.OpenAI, 8)
	mangle(f, always, func(items []openaitest.Item) []openaitest.Item {
		for i := range items {
			items[i].Index = 0
		}
		return items
	})
	o := newTestOpenAI(t, f.BaseURL(), nil)
	in := texts(4)
	mustEmbed(t, o, in, 8)
}

func TestOpenAIMalformedJSON(t *testing.T) {
	for _, body := range []string{`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,`, `<html>bad gateway</html>`,
		`{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AAAA"}]}`} {
		t.Run(body[:10], func(t *testing.T) {
			f := newFake(t, openaitest.OpenAI, 8)
			bad := 1
			f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
				if n >= bad {
					return false
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
				return true
			})
			o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxRetries = 2 })
			if _, err := o.Embed(context.Background(), texts(1)); err != nil {
				t.Fatalf("one garbled answer then a good one: %v", err)
			}
			bad = 1 << 30
			_, err := o.Embed(context.Background(), texts(1))
			if !errors.Is(err, ErrBadResponse) || !errors.Is(err, ErrRetriesExhausted) {
				t.Fatalf("err = %v, want ErrBadResponse after retries", err)
			}
		})
	}
}

func TestOpenAIBadVectors(t *testing.T) {
	for name, change := range map[string]func(openaitest.Item) openaitest.Item{
		"wrong dims": func(it openaitest.Item) openaitest.Item { it.Embedding = it.Embedding[:7]; return it },
		"all zero":   func(it openaitest.Item) openaitest.Item { it.Embedding = make([]float32, 8); return it },
		"null":       func(it openaitest.Item) openaitest.Item { it.Embedding = nil; return it },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, openaitest.OpenAI, 8)
			notProbe := func(n int) bool { return n > 0 }
			mangle(f, notProbe, func(items []openaitest.Item) []openaitest.Item { items[1] = change(items[1]); return items })
			o := newTestOpenAI(t, f.BaseURL(), nil)
			got, err := o.Embed(context.Background(), texts(3))
			if !errors.Is(err, embed.ErrBadVector) || got != nil {
				t.Fatalf("Embed = %v, %v; want nil and embed.ErrBadVector", got, err)
			}
		})
	}
	t.Run("overflow", func(t *testing.T) {
		f := newFake(t, openaitest.OpenAI, 2)
		f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1e39,0.5]}],"model":"m"}`))
			return true
		})
		o := newTestOpenAI(t, f.BaseURL(), func(c *Config) { c.SkipProbe = true; c.MaxRetries = -1 })
		if _, err := o.Embed(context.Background(), texts(1)); !errors.Is(err, ErrBadResponse) {
			t.Fatalf("err = %v, want ErrBadResponse for a value beyond float32", err)
		}
	})
}

func TestOpenAICheckVector(t *testing.T) {
	o, err := newEmbedder(Config{BaseURL: "http://127.0.0.1:1/v1", Dimensions: 3})
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := float32(0), float32(1)
	nan /= nan
	inf /= 0
	for _, v := range [][]float32{{1, nan, 0}, {inf, 0, 0}, {0, 0, 0}, {1, 2}, {}} {
		if err := o.check(v); !errors.Is(err, embed.ErrBadVector) {
			t.Errorf("check(%v) = %v, want embed.ErrBadVector", v, err)
		}
	}
	if err := o.check([]float32{0, 1, 0}); err != nil {
		t.Errorf("check(good) = %v", err)
	}
}

func TestOpenAIEmptyText(t *testing.T) {
	_, o := newPair(t, 8, func(c *Config) { c.SkipProbe = true }) // the fake rejects "" like OpenAI does
	got, err := o.Embed(context.Background(), []string{"a", "", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[1], openaitest.Vector(" ", 8)) {
		t.Errorf("empty text not sent as a space")
	}
}

func TestOpenAIBase64(t *testing.T) {
	f, o := newPair(t, 32, func(c *Config) { c.EncodingFormat = "base64" })
	in := texts(5)
	mustEmbed(t, o, in, 32)
	if r := f.Requests()[1]; r.EncodingFormat != "base64" {
		t.Errorf("encoding_format = %q, want base64", r.EncodingFormat)
	}

	// NaN can only arrive in base64; it must be caught.
	f.SetHook(func(n int, req openaitest.Request, w http.ResponseWriter, _ *http.Request) bool {
		items := f.Embeddings(req)
		items[0].Embedding[3] = float32(math.NaN())
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": openaitest.Base64(items), "model": req.Model})
		return true
	})
	if _, err := o.Embed(context.Background(), in); !errors.Is(err, embed.ErrBadVector) {
		t.Fatalf("NaN in base64: err = %v, want embed.ErrBadVector", err)
	}
}
