package weaviate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// client speaks Weaviate's REST and GraphQL API over net/http. It is safe
// for concurrent use.
type client struct {
	base   string // "http://host:port"
	apiKey string
	http   *http.Client
}

// StatusError is a non-2xx answer from Weaviate.
type StatusError struct {
	Method, Path string
	Code         int
	Body         string // the first 500 bytes
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("weaviate %s %s: %d %s: %s", e.Method, e.Path, e.Code, http.StatusText(e.Code), e.Body)
}

// Is maps 401/403 to ErrAuth and 503 to ErrUnreachable.
func (e *StatusError) Is(target error) bool {
	switch target {
	case ErrAuth:
		return e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden
	case ErrUnreachable:
		return e.Code == http.StatusServiceUnavailable
	}
	return false
}

// do sends a JSON request and decodes a JSON answer into out (when not
// nil). A 404 comes back as a *StatusError with Code 404.
func (c *client) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", method, path, ctx.Err())
		}
		return fmt.Errorf("%w: %s %s: %w", ErrUnreachable, method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		se := &StatusError{Method: method, Path: path, Code: resp.StatusCode, Body: strings.TrimSpace(string(b))}
		switch {
		case errors.Is(se, ErrAuth):
			return fmt.Errorf("%w (check the API key): %w", ErrAuth, se)
		case errors.Is(se, ErrUnreachable):
			return fmt.Errorf("%w: %w", ErrUnreachable, se)
		}
		return se
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode %s %s: %w", method, path, err)
	}
	return nil
}

// isStatus reports whether err is a *StatusError with code.
func isStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// graphQLError is one entry of a GraphQL answer's "errors".
type graphQLError struct {
	Message string `json:"message"`
}

// graphql runs a GraphQL query and decodes its "data" into out.
func (c *client) graphql(ctx context.Context, query string, out any) error {
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []graphQLError  `json:"errors"`
	}
	if err := c.do(ctx, http.MethodPost, "/v1/graphql", nil, map[string]string{"query": query}, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("weaviate graphql: %s", strings.Join(msgs, "; "))
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("decode graphql data: %w", err)
	}
	return nil
}
