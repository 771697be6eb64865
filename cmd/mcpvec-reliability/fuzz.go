package main

import (
	"context"
	"fmt"
	"math/rand"
	"net/http"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// fuzzFigures is what the fuzz pass counted.
type fuzzFigures struct {
	Requests, ServerErrors, Transport int
	Failed                            []string // the first few 5xx or dropped requests
}

// fuzzServer sends n malformed or hostile requests to the running server:
// tool arguments of every JSON type and size, broken JSON-RPC framing,
// oversized and deeply nested bodies, and tampered document links. None may
// get a 5xx or a dropped connection, and the server must still answer a
// plain search afterwards.
func fuzzServer(ctx context.Context, base string, n int, rng *rand.Rand) (*fuzzFigures, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	defer c.CloseIdleConnections()
	_, sid, _, err := childproc.Post(ctx, c, base+"/mcp", "", childproc.InitializeBody)
	if err != nil || sid == "" {
		return nil, fmt.Errorf("initialize for the fuzz pass: %v", err)
	}
	link, err := docLink(ctx, base)
	if err != nil {
		return nil, err
	}
	ff := &fuzzFigures{}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		var st int
		var what string
		switch i % 3 {
		case 0:
			what = toolCall(rng)
			st, _, _, err = childproc.Post(ctx, c, base+"/mcp", sid, what)
		case 1:
			what = framing(rng)
			st, _, _, err = childproc.Post(ctx, c, base+"/mcp", sid, what)
		default:
			what = tamper(link, rng)
			st, err = get(ctx, c, what)
		}
		ff.count(st, err, what)
	}
	call := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"query":"cats"}}}`
	if st, _, _, err := childproc.Post(ctx, c, base+"/mcp", sid, call); err != nil || st != http.StatusOK {
		return ff, fmt.Errorf("search after the fuzz pass: %d %v", st, err)
	}
	return ff, nil
}

func (ff *fuzzFigures) count(st int, err error, what string) {
	ff.Requests++
	switch {
	case err != nil:
		ff.Transport++
	case st >= 500:
		ff.ServerErrors++
	default:
		return
	}
	if len(ff.Failed) < 3 {
		ff.Failed = append(ff.Failed, fmt.Sprintf("%d %v: %.200s", st, err, what))
	}
}

func get(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 400, nil // a URL Go refuses to send is not the server's fault
	}
	req.Header.Set("Range", "bytes=0-1023")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// jsonValues are argument values of every JSON type, hostile sizes included.
var jsonValues = []func(*rand.Rand) string{
	func(*rand.Rand) string { return `null` },
	func(r *rand.Rand) string { return fmt.Sprint(r.Int63() - r.Int63()) },
	func(*rand.Rand) string { return `1e999` },
	func(*rand.Rand) string { return `true` },
	func(*rand.Rand) string { return `""` },
	func(r *rand.Rand) string { return `"` + strings.Repeat("ä\\u0000", r.Intn(5000)) + `"` },
	func(r *rand.Rand) string { return deep(r.Intn(5000)) },
	func(*rand.Rand) string { return `{"query":{"$gt":""}}` },
	func(r *rand.Rand) string { return `"doc:` + fmt.Sprint(r.Int63()) + `:99999999999999999999"` },
	func(*rand.Rand) string { return `"../../etc/passwd"` },
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// toolCall is a tools/call with a random tool name and random arguments.
func toolCall(r *rand.Rand) string {
	name := []string{"search", "fetch", "nope", ""}[r.Intn(4)]
	key := []string{"query", "id", "k", "mode", ""}[r.Intn(5)]
	val := jsonValues[r.Intn(len(jsonValues))](r)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{%q:%s}}}`, r.Intn(1e6), name, key, val)
}

// framing is a broken or hostile JSON-RPC message.
func framing(r *rand.Rand) string {
	switch r.Intn(8) {
	case 0:
		b := make([]byte, r.Intn(2000))
		r.Read(b)
		return string(b)
	case 1:
		return toolCall(r)[:r.Intn(60)]
	case 2:
		return `[` + toolCall(r) + `,` + toolCall(r) + `]`
	case 3:
		return `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`
	case 4:
		return `{"jsonrpc":"2.0","id":` + deep(100000) + `,"method":"tools/list"}`
	case 5:
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + strings.Repeat("x", 8<<20) + `"}}}`
	case 6:
		return `{"jsonrpc":"2.0","method":"notifications/` + strings.Repeat("z", r.Intn(3000)) + `"}`
	}
	return `{"jsonrpc":"2.0","id":{},"method":` + jsonValues[r.Intn(len(jsonValues))](r) + `}`
}

// tamper changes a signed document link: its id, its signature, its path.
func tamper(link string, r *rand.Rand) string {
	i := strings.LastIndex(link, "/docs/")
	if i < 0 {
		return link
	}
	base, rest := link[:i], link[i+len("/docs/"):]
	variants := []string{
		rest[:len(rest)-1] + string(rune('a'+r.Intn(26))),
		strings.Replace(rest, "/", "/../", 1),
		"%2e%2e/%2e%2e/etc/passwd",
		rest + "/" + strings.Repeat("a", r.Intn(10000)),
		strings.Repeat("x", r.Intn(300)) + "/" + rest,
		rest + "?" + strings.Repeat("q=1&", r.Intn(2000)),
	}
	return base + "/docs/" + variants[r.Intn(len(variants))]
}
