package openai

import (
	"context"
	"fmt"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/internal/backoff"
)

// embedBatch fills out (aligned with pieces), retrying failed attempts and
// re-sending only the inputs a partial answer left out.
func (o *Embedder) embedBatch(ctx context.Context, pieces []piece, out [][]float32, retries int, timeout time.Duration) error {
	pending := make([]int, len(pieces))
	for i := range pending {
		pending[i] = i
	}
	for attempt := 0; ; attempt++ {
		got, ae := o.attempt(ctx, pieces, pending, timeout)
		if ae == nil {
			left := fill(out, pending, got)
			if len(left) == 0 {
				return nil
			}
			if len(left) < len(pending) {
				// Progress (a server that caps its batch size, say): ask for
				// the rest at once, without spending a retry.
				o.log.Debug("partial embeddings answer, requesting the rest", "answered", len(pending)-len(left), "left", len(left))
				pending = left
				attempt--
				continue
			}
			ae = &attemptError{retry: true,
				err: fmt.Errorf("%w: server answered none of %d inputs", ErrBadResponse, len(pending))}
		}
		if !ae.retry {
			return ae.err
		}
		if attempt >= retries {
			return fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempt+1, ae.err)
		}
		if ae.retryAfter > maxRetryAfter {
			return fmt.Errorf("server asks to retry after %s: %w", ae.retryAfter.Round(time.Second), ae.err)
		}
		wait := backoff.Delay(attempt, o.cfg.RetryBaseDelay, o.cfg.RetryMaxDelay, ae.retryAfter)
		o.log.Warn("embeddings request failed, retrying", "url", o.baseURL, "attempt", attempt+1,
			"inputs", len(pending), "wait", wait, "err", ae.err)
		if err := backoff.Sleep(ctx, wait); err != nil {
			return err
		}
		o.retries.Add(1)
	}
}

// fill stores answered vectors and returns the still-pending indices.
func fill(out [][]float32, pending []int, got [][]float32) []int {
	var left []int
	for k, i := range pending {
		if got[k] == nil {
			left = append(left, i)
			continue
		}
		out[i] = got[k]
	}
	return left
}

// attempt sends pieces[pending] once. It returns vectors aligned with
// pending, nil where the server left an input out.
func (o *Embedder) attempt(ctx context.Context, pieces []piece, pending []int, timeout time.Duration) ([][]float32, *attemptError) {
	inputs := make([]string, len(pending))
	tokens := 0
	for k, i := range pending {
		inputs[k] = pieces[i].text
		tokens += pieces[i].tokens
	}
	select {
	case o.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, &attemptError{err: context.Cause(ctx)}
	}
	defer func() { <-o.sem }()
	o.requests.Add(1)
	o.inputs.Add(int64(len(inputs)))
	o.estTokens.Add(int64(tokens))

	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rep := &reply{}
	req := goopenai.EmbeddingRequest{Input: inputs, Model: goopenai.EmbeddingModel(o.cfg.Model), Dimensions: o.cfg.Dimensions}
	if o.cfg.EncodingFormat == "base64" {
		// "float" is the default and is left out: some servers reject the field.
		req.EncodingFormat = goopenai.EmbeddingEncodingFormatBase64
	}
	resp, err := o.client.CreateEmbeddings(context.WithValue(actx, replyKey{}, rep), req)
	if err != nil {
		ae := o.classify(ctx, actx, rep, err)
		return nil, &ae
	}
	o.repTokens.Add(int64(max(resp.Usage.PromptTokens, resp.Usage.TotalTokens)))
	got, err := o.place(resp.Data, len(inputs))
	if err != nil {
		return nil, &attemptError{err: err}
	}
	return got, nil
}

// place orders the answer by its index field (servers may answer out of
// order, or leave inputs out) and validates each vector. A server that
// numbers every item 0 (seen in some compatible servers) but answers all
// inputs is read positionally.
func (o *Embedder) place(data []goopenai.Embedding, n int) ([][]float32, error) {
	if len(data) > n {
		return nil, fmt.Errorf("%w: %d embeddings for %d inputs", ErrBadResponse, len(data), n)
	}
	positional := n > 1 && len(data) == n
	for _, d := range data {
		positional = positional && d.Index == 0
	}
	if positional {
		o.warnIndexOnce.Do(func() {
			o.log.Warn("embeddings server numbers every item 0; using answer order", "url", o.baseURL)
		})
	}
	got := make([][]float32, n)
	for k, d := range data {
		i := d.Index
		if positional {
			i = k
		}
		if i < 0 || i >= n || got[i] != nil {
			return nil, fmt.Errorf("%w: embedding index %d out of range or repeated (%d inputs)", ErrBadResponse, d.Index, n)
		}
		if err := o.check(d.Embedding); err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		got[i] = d.Embedding
	}
	return got, nil
}

// check validates one vector, learning the dimensions from the first one
// when they are not yet known.
func (o *Embedder) check(v []float32) error {
	if len(v) > 0 {
		o.dims.CompareAndSwap(0, int64(len(v)))
	}
	if err := embed.CheckVector(v, int(o.dims.Load())); err != nil {
		return fmt.Errorf("model %q: %w", o.cfg.Model, err)
	}
	return nil
}
