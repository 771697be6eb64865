package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// session opens one MCP session: initialize, then the initialized
// notification.
func session(ctx context.Context, c *http.Client, url string) (string, error) {
	st, sid, body, err := childproc.Post(ctx, c, url, "", childproc.InitializeBody)
	if err != nil || st != http.StatusOK {
		return "", fmt.Errorf("initialize: status %d: %w %s", st, err, childproc.Tail(string(body), 300))
	}
	st, _, _, err = childproc.Post(ctx, c, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil || st/100 != 2 {
		return "", fmt.Errorf("notifications/initialized: status %d: %w", st, err)
	}
	return sid, nil
}

// searchBody is the tools/call request of a search for query.
func searchBody(id int64, query string) string {
	q, _ := json.Marshal(query)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":%s}}}`, id, q)
}

// loadFigures is what one load phase measured.
type loadFigures struct {
	Clients    int     `json:"clients"`
	Requests   int     `json:"requests"`
	Errors     int     `json:"errors"`
	Seconds    float64 `json:"seconds"`
	PerSecond  float64 `json:"requests_per_second"`
	P50ms      float64 `json:"p50_ms"`
	P99ms      float64 `json:"p99_ms"`
	Maxms      float64 `json:"max_ms"`
	FirstError string  `json:"first_error,omitempty"`
	// ServeCPUms is the CPU time (user + system) serve used during the
	// phase, per call; the load generator's own share is not in it.
	ServeCPUms float64 `json:"serve_cpu_ms_per_call,omitempty"`
	// HarnessCPUms is the CPU time this process (the load generator) used
	// during the phase, per call: on the same cores, it is CPU serve did
	// not get.
	HarnessCPUms float64 `json:"harness_cpu_ms_per_call,omitempty"`
	// Host is how the machine's CPU time went during the phase besides
	// serve and this harness: stolen by the hypervisor, or used by other
	// processes. Either makes the phase's timings worse than the code's.
	Host *childproc.HostShares `json:"host,omitempty"`
	// calls is every call of the phase, for -latencies.
	calls []callTime
}

// callTime is one search call of a load phase: when it started (from the
// phase's start), how long it took, and which query it sent.
type callTime struct {
	start, took time.Duration
	query       int
}

// runLoad sends MCP search calls from clients concurrent sessions until
// total calls are done or limit has passed, and measures each call's
// latency. Queries are taken in turn from queries.
func runLoad(ctx context.Context, url string, clients, total int, limit time.Duration, queries []string, raw bool) (*loadFigures, error) {
	l, err := openLoad(ctx, url, clients, raw)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	return l.run(ctx, total, limit, queries), nil
}

// load is a set of open MCP sessions, one per client, that search calls
// can be sent from; not safe for concurrent use.
type load struct {
	tr    *http.Transport
	posts []poster
	raws  []*rawConn
}

// openLoad opens clients sessions at url, each with its own connection
// (rawConn when raw).
func openLoad(ctx context.Context, url string, clients int, raw bool) (*load, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	l := &load{tr: tr}
	for range clients {
		sid, err := session(ctx, c, url)
		if err != nil {
			l.Close()
			return nil, err
		}
		post := netPost(c, url, sid)
		if raw {
			rc, err := newRawConn(url, sid)
			if err != nil {
				l.Close()
				return nil, err
			}
			l.raws = append(l.raws, rc)
			post = func(ctx context.Context, body string) (int, []byte, error) { return rc.post(ctx, body, c.Timeout) }
		}
		l.posts = append(l.posts, post)
	}
	return l, nil
}

// Close closes the sessions' connections.
func (l *load) Close() {
	for _, rc := range l.raws {
		rc.Close()
	}
	l.tr.CloseIdleConnections()
}

// run sends total calls (at most; none once limit has passed) from every
// session at once, taking queries in turn, and measures each call.
func (l *load) run(ctx context.Context, total int, limit time.Duration, queries []string) *loadFigures {
	var next atomic.Int64
	calls := make([][]callTime, len(l.posts))
	var errs atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(limit)
	start := time.Now()
	var wg sync.WaitGroup
	for w, post := range l.posts {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(total) || time.Now().After(deadline) || ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				q := int(i % int64(len(queries)))
				err := searchOnce(ctx, post, i, queries[q])
				calls[w] = append(calls[w], callTime{start: t0.Sub(start), took: time.Since(t0), query: q})
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}
		})
	}
	wg.Wait()
	f := summarise(slices.Concat(calls...), time.Since(start))
	f.Clients, f.Errors = len(l.posts), int(errs.Load())
	if s, ok := firstErr.Load().(string); ok {
		f.FirstError = s
	}
	return f
}

// poster sends one JSON-RPC body in a session and returns the status and
// the response body.
type poster func(ctx context.Context, body string) (int, []byte, error)

// netPost is a poster through net/http's client c.
func netPost(c *http.Client, url, sid string) poster {
	return func(ctx context.Context, body string) (int, []byte, error) {
		st, _, b, err := childproc.Post(ctx, c, url, sid, body)
		return st, b, err
	}
}

// searchOnce makes one search call and checks that a result came back that
// is not a tool error.
func searchOnce(ctx context.Context, post poster, id int64, query string) error {
	st, body, err := post(ctx, searchBody(id+2, query))
	switch {
	case err != nil:
		return err
	case st != http.StatusOK:
		return fmt.Errorf("search: status %d %s", st, childproc.Tail(string(body), 200))
	case !bytes.Contains(body, []byte(`"result"`)) || bytes.Contains(body, []byte(`"isError":true`)):
		return fmt.Errorf("search: not a result: %s", childproc.Tail(string(body), 200))
	}
	return nil
}

// summarise turns a phase's calls into its figures; the phase took wall.
func summarise(calls []callTime, wall time.Duration) *loadFigures {
	slices.SortFunc(calls, func(a, b callTime) int { return cmp.Compare(a.start, b.start) })
	lat := make([]time.Duration, len(calls))
	for i, c := range calls {
		lat[i] = c.took
	}
	slices.Sort(lat)
	f := &loadFigures{Requests: len(lat), Seconds: wall.Seconds(), calls: calls}
	if len(lat) == 0 {
		return f
	}
	f.PerSecond = float64(len(lat)) / wall.Seconds()
	f.P50ms = ms(lat[len(lat)/2])
	f.P99ms = ms(lat[min(len(lat)-1, len(lat)*99/100)])
	f.Maxms = ms(lat[len(lat)-1])
	return f
}

// writeLatencies writes every call of phases to path, one line each:
// clients, start (ms from the phase's start), latency (ms), query index
// (its line in the claims file, from 0). The p99 of a phase is a few dozen
// calls: this shows whether they cluster in time (a start-up cost, a
// pause) or belong to a few queries.
func writeLatencies(path string, phases []loadFigures) error {
	var b strings.Builder
	b.WriteString("# clients start_ms latency_ms query\n")
	for _, f := range phases {
		for _, c := range f.calls {
			fmt.Fprintf(&b, "%d %.3f %.3f %d\n", f.Clients, ms(c.start), ms(c.took), c.query)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
