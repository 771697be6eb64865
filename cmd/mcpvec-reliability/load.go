package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// tally counts what a phase did.
type tally struct {
	requests, errors atomic.Int64
}

// abandonSessions initializes n sessions from workers goroutines and never
// ends them. It returns the first session id and the last one.
func abandonSessions(ctx context.Context, base string, n, workers int, t *tally) (first, last string) {
	c := &http.Client{Timeout: 30 * time.Second}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n) && ctx.Err() == nil; i = next.Add(1) {
				t.requests.Add(1)
				st, sid, _, err := childproc.Post(ctx, c, base+"/mcp", "", childproc.InitializeBody)
				if err != nil || st != http.StatusOK || sid == "" {
					t.errors.Add(1)
					continue
				}
				mu.Lock()
				if first == "" {
					first = sid
				}
				last = sid
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	c.CloseIdleConnections()
	return first, last
}

// sessionStatus reports the HTTP status of tools/list on a session.
func sessionStatus(ctx context.Context, base, sid string) int {
	st, _, _, err := childproc.Post(ctx, http.DefaultClient, base+"/mcp", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err != nil {
		return 0
	}
	return st
}

// docLink searches for bigMarker over a fresh session and returns the
// signed link of the big document.
func docLink(ctx context.Context, base string) (string, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	_, sid, _, err := childproc.Post(ctx, c, base+"/mcp", "", childproc.InitializeBody)
	if err != nil {
		return "", err
	}
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + bigMarker + `"}}}`
	_, _, body, err := childproc.Post(ctx, c, base+"/mcp", sid, call)
	if err != nil {
		return "", err
	}
	var resp struct {
		Result struct {
			Structured struct {
				Results []struct{ URL string } `json:"results"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Result.Structured.Results) == 0 {
		return "", fmt.Errorf("search %s: no result (%v): %.300s", bigMarker, err, body)
	}
	u, _, _ := strings.Cut(resp.Result.Structured.Results[0].URL, "#")
	return u, nil
}

// slowReaders opens n downloads of url and reads each at about rate bytes
// per second for d, then closes them.
func slowReaders(ctx context.Context, url string, n, rate int, d time.Duration, t *tally) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			t.requests.Add(1)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			tr := &http.Transport{ReadBufferSize: 4 << 10}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.errors.Add(1)
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, max(rate/10, 1))
			for ctx.Err() == nil {
				if _, err := io.ReadFull(resp.Body, buf); err != nil {
					return
				}
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		})
	}
	wg.Wait()
}

// unreadSSE opens a legacy SSE stream, reads only its endpoint event, then
// posts n search calls to its message endpoint without ever reading the
// answers. It returns how many posts were refused (any status but 202).
func unreadSSE(ctx context.Context, base string, n int, t *tally) (refused int64, err error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
	tr := &http.Transport{ReadBufferSize: 4 << 10}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, fmt.Errorf("open sse: %w", err)
	}
	defer resp.Body.Close()
	endpoint, err := sseEndpoint(bufio.NewReaderSize(resp.Body, 512))
	if err != nil {
		return 0, err
	}
	c := &http.Client{Timeout: 30 * time.Second}
	msgs := []string{childproc.InitializeBody, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for i := range n {
		msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"cats home territory %d"}}}`, i+10, i))
	}
	for _, m := range msgs {
		if ctx.Err() != nil {
			break
		}
		t.requests.Add(1)
		r, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+endpoint, bytes.NewReader([]byte(m)))
		r.Header.Set("Content-Type", "application/json")
		pr, err := c.Do(r)
		if err != nil {
			t.errors.Add(1)
			continue
		}
		io.Copy(io.Discard, io.LimitReader(pr.Body, 1<<16))
		pr.Body.Close()
		if pr.StatusCode != http.StatusAccepted {
			refused++
		}
	}
	return refused, nil
}

// sseEndpoint reads the endpoint event of a legacy SSE stream.
func sseEndpoint(r *bufio.Reader) (string, error) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("read sse endpoint: %w", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			return data, nil
		}
	}
}
