package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// base is where a browser or client reaches this server.
func (h *Handler) base(r *http.Request) string {
	if h.opts.PublicURL != "" {
		return strings.TrimRight(h.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (h *Handler) connectPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "connect", "Connect", h.connectData(r))
}

// connectTest calls the MCP endpoint like a client: initialize, tools/list
// and a search, over the local address this request arrived on.
func (h *Handler) connectTest(w http.ResponseWriter, r *http.Request) {
	d := h.connectData(r)
	d.Query = strings.TrimSpace(r.PostFormValue("q"))
	if d.Query == "" {
		d.Query = "test"
	}
	d.Test = h.runTest(r, d.Query)
	h.render(w, r, http.StatusOK, "connect", "Connect", d)
}

type testStep struct {
	Name, Detail string
	OK           bool
}

type testResult struct {
	URL   string
	Steps []testStep
	OK    bool
}

func (h *Handler) runTest(r *http.Request, q string) *testResult {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	res := &testResult{}
	if addr == nil {
		res.Steps = append(res.Steps, testStep{Name: "connect", Detail: "no local address to call"})
		return res
	}
	c := &mcpClient{url: "http://" + addr.String() + h.opts.MCPPath, token: h.opts.Token, hc: &http.Client{Timeout: 20 * time.Second}}
	res.URL = c.url
	ctx := r.Context()
	steps := []struct {
		name string
		run  func(context.Context) (string, error)
	}{
		{"initialize", c.initialize},
		{"tools/list", c.listTools},
		{"tools/call search " + fmt.Sprintf("%q", q), func(ctx context.Context) (string, error) { return c.search(ctx, q) }},
	}
	res.OK = true
	for _, s := range steps {
		detail, err := s.run(ctx)
		if err != nil && h.opts.Token == "" && h.opts.CheckOwner != nil && strings.Contains(err.Error(), "401") {
			err = fmt.Errorf("%w (the endpoint wants an OAuth access token: connect ChatGPT or Claude and watch the activity page)", err)
		}
		if err != nil {
			res.Steps = append(res.Steps, testStep{Name: s.name, Detail: err.Error()})
			res.OK = false
			return res
		}
		res.Steps = append(res.Steps, testStep{Name: s.name, Detail: detail, OK: true})
	}
	return res
}

// mcpClient is the few JSON-RPC calls of a streamable HTTP client.
type mcpClient struct {
	url, token, session string
	hc                  *http.Client
	id                  int
}

func (c *mcpClient) call(ctx context.Context, method string, params any, out any) error {
	c.id++
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if out != nil {
		msg["id"] = c.id
	}
	body, _ := json.Marshal(msg)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: HTTP %s: %s", method, resp.Status, strings.TrimSpace(string(data)))
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	if out == nil {
		return nil
	}
	return decodeRPC(method, data, out)
}

// decodeRPC reads a JSON-RPC response, plain or as an SSE "data:" line.
func decodeRPC(method string, data []byte, out any) error {
	if i := bytes.Index(data, []byte("data:")); i >= 0 && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		data = data[i+5:]
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			data = data[:j]
		}
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%s: bad response: %w", method, err)
	}
	if env.Error != nil {
		return fmt.Errorf("%s: %s", method, env.Error.Message)
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		return fmt.Errorf("%s: bad result: %w", method, err)
	}
	return nil
}

func (c *mcpClient) initialize(ctx context.Context) (string, error) {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name, Version string }
	}
	params := map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "mcpvec-web-test", "version": "1"}}
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		return "", err
	}
	if err := c.call(ctx, "notifications/initialized", map[string]any{}, nil); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s, protocol %s", res.ServerInfo.Name, res.ServerInfo.Version, res.ProtocolVersion), nil
}

func (c *mcpClient) listTools(ctx context.Context) (string, error) {
	var res struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := c.call(ctx, "tools/list", map[string]any{}, &res); err != nil {
		return "", err
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return "tools: " + strings.Join(names, ", "), nil
}

func (c *mcpClient) search(ctx context.Context, q string) (string, error) {
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Results []struct{ Title string } `json:"results"`
		} `json:"structuredContent"`
	}
	params := map[string]any{"name": "search", "arguments": map[string]string{"query": q}}
	if err := c.call(ctx, "tools/call", params, &res); err != nil {
		return "", err
	}
	if res.IsError {
		return "", fmt.Errorf("search returned a tool error")
	}
	n := len(res.StructuredContent.Results)
	if n == 0 {
		return "0 results", nil
	}
	return fmt.Sprintf("%d results, first: %s", n, res.StructuredContent.Results[0].Title), nil
}
