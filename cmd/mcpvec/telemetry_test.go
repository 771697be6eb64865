package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver on 127.0.0.1: it decodes
// each ExportTraceServiceRequest (protobuf) and keeps its spans.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if r.URL.Path != "/v1/traces" || err != nil {
			t.Errorf("OTLP receiver: %s %s: %v", r.Method, r.URL.Path, err)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// waitSpan returns the first span named name, waiting up to 30 seconds.
func (rc *otlpReceiver) waitSpan(t *testing.T, name string) (*tracepb.Span, []*tracepb.Span) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		rc.mu.Lock()
		all := append([]*tracepb.Span(nil), rc.spans...)
		rc.mu.Unlock()
		for _, s := range all {
			if s.Name == name {
				return s, all
			}
		}
	}
	t.Fatalf("no span %q reached the OTLP receiver within 30s", name)
	return nil, nil
}

// searchWithTrace calls search with the W3C trace context in params._meta,
// as MCP 2026-07-28 clients send it.
func searchWithTrace(t *testing.T, c *client.Client, query, traceparent string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": query}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": traceparent}}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("search %q: %+v %v", query, res, err)
	}
	return res
}

// scrape GETs url (with the bearer token when given) and parses the
// Prometheus text it answers; a status other than 200 is returned with nil.
func scrape(t *testing.T, url, token string) (int, map[string]*dto.MetricFamily) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return resp.StatusCode, fams
}

// sample is the value of the series of family name whose labels include
// want (a counter's, a gauge's, or a histogram's count), or -1.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && have[k] == v
		}
		switch {
		case !match:
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

const testTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// TestServeMetricsAndTrace is issue 39's must-show: a real search through a
// real MCP client, then a Prometheus scrape of /metrics on the serve
// address and the OTLP trace the server sent, continuing the trace id the
// client put in params._meta.traceparent; the JSON access line of the call
// carries that trace id and not the query.
func TestServeMetricsAndTrace(t *testing.T) {
	t.Parallel()
	db, _ := checkLibrary(t, 3)
	rc := newOTLPReceiver(t)
	srv := serveProc(t, db, []string{"OTEL_BSP_SCHEDULE_DELAY=50"}, "--otlp-endpoint", rc.URL, "--log-format", "json")
	// A protocol with sessions (2026-07-28 is stateless): the span names it.
	c := connect(t, srv.url, mcp.ProtocolVersion20251125)
	const query = "harbour lanterns"
	searchWithTrace(t, c, query, testTraceparent)

	code, fams := scrape(t, strings.TrimSuffix(srv.url, "/mcp")+"/metrics", "")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics on loopback without a token: %d", code)
	}
	for _, w := range []struct {
		name   string
		labels map[string]string
		min    float64
	}{
		{"mcpvec_mcp_requests_total", map[string]string{"tool": "search", "outcome": "ok"}, 1},
		{"mcpvec_mcp_request_duration_seconds", map[string]string{"tool": "search"}, 1},
		{"mcpvec_search_stage_duration_seconds", map[string]string{"stage": "first_stage"}, 1},
		{"mcpvec_search_stage_duration_seconds", map[string]string{"stage": "snippets"}, 1},
		{"mcpvec_http_requests_total", map[string]string{"route": "/mcp", "method": "POST", "code": "200"}, 2},
		{"mcpvec_index_documents", nil, 3},
		{"mcpvec_index_passages", nil, 3},
		{"go_goroutines", nil, 1},
		{"process_resident_memory_bytes", nil, 1},
	} {
		if got := sample(fams, w.name, w.labels); got < w.min {
			t.Errorf("%s%v = %v, want >= %v", w.name, w.labels, got, w.min)
		}
	}

	span, all := rc.waitSpan(t, "tools/call search")
	t.Logf("scrape: mcpvec_mcp_requests_total{tool=search,outcome=ok} %v, search latency count %v, first_stage %v, snippets %v, index documents %v",
		sample(fams, "mcpvec_mcp_requests_total", map[string]string{"tool": "search", "outcome": "ok"}),
		sample(fams, "mcpvec_mcp_request_duration_seconds", map[string]string{"tool": "search"}),
		sample(fams, "mcpvec_search_stage_duration_seconds", map[string]string{"stage": "first_stage"}),
		sample(fams, "mcpvec_search_stage_duration_seconds", map[string]string{"stage": "snippets"}),
		sample(fams, "mcpvec_index_documents", nil))
	t.Logf("OTLP span %q trace %x parent %x span %x, %d spans received", span.Name, span.TraceId, span.ParentSpanId, span.SpanId, len(all))
	if got, want := hex.EncodeToString(span.TraceId), "4bf92f3577b34da6a3ce929d0e0e4736"; got != want {
		t.Errorf("span trace id = %s, want the client's %s", got, want)
	}
	if got, want := hex.EncodeToString(span.ParentSpanId), "00f067aa0ba902b7"; got != want {
		t.Errorf("span parent = %s, want the client's span %s", got, want)
	}
	attrs := map[string]string{}
	for _, kv := range span.Attributes {
		attrs[kv.Key] = kv.Value.GetStringValue()
	}
	if attrs["mcp.method.name"] != "tools/call" || attrs["gen_ai.tool.name"] != "search" || attrs["mcp.session.id"] == "" || attrs["jsonrpc.request.id"] == "" {
		t.Errorf("span attributes = %v", attrs)
	}
	if span.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("span kind = %v, want server", span.Kind)
	}
	stages := 0
	for _, s := range all {
		if strings.HasPrefix(s.Name, "search ") && string(s.ParentSpanId) == string(span.SpanId) {
			stages++
		}
	}
	if stages < 2 {
		t.Errorf("%d stage spans under the tool span, want first_stage and snippets", stages)
	}
	line := accessLine(t, srv.Stderr.String(), "tools/call")
	if line["trace_id"] != "4bf92f3577b34da6a3ce929d0e0e4736" || line["tool"] != "search" || line["route"] != "/mcp" {
		t.Errorf("access line = %v", line)
	}
	if strings.Contains(srv.Stderr.String(), query) {
		t.Errorf("the query's text is in the log without --log-queries:\n%s", srv.Stderr)
	}
}

// accessLine returns the first JSON log line of an HTTP request with MCP
// method method; none fails t.
func accessLine(t *testing.T, stderr, method string) map[string]any {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			if strings.HasPrefix(sc.Text(), "{") {
				t.Errorf("log line is not JSON: %s", sc.Text())
			}
			continue
		}
		if m["msg"] == "http request" && m["mcp_method"] == method {
			return m
		}
	}
	t.Fatalf("no access line for %s in:\n%s", method, stderr)
	return nil
}

// TestServeMetricsNeedTheToken: with --token, /metrics asks for it as /mcp
// does.
func TestServeMetricsNeedTheToken(t *testing.T) {
	t.Parallel()
	db, _ := checkLibrary(t, 1)
	srv := serveProc(t, db, nil, "--token", "s3cret-token")
	url := strings.TrimSuffix(srv.url, "/mcp") + "/metrics"
	if code, _ := scrape(t, url, ""); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token: %d, want 401", code)
	}
	if code, _ := scrape(t, url, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics with a wrong token: %d, want 401", code)
	}
	if code, fams := scrape(t, url, "s3cret-token"); code != http.StatusOK || sample(fams, "mcpvec_index_documents", nil) != 1 {
		t.Errorf("GET /metrics with the token: %d", code)
	}
}

var metricsURL = regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/metrics)`)

// TestServeMetricsAddr: --metrics-addr serves /metrics on its own
// listener and only there; --log-queries puts the query in the access
// line.
func TestServeMetricsAddr(t *testing.T) {
	t.Parallel()
	db, _ := checkLibrary(t, 2)
	srv := serveProc(t, db, nil, "--metrics-addr", "127.0.0.1:0", "--log-queries")
	m := metricsURL.FindStringSubmatch(waitOutput(t, srv.Stderr, "/metrics"))
	if m == nil {
		t.Fatalf("no metrics url in:\n%s", srv.Stderr)
	}
	c := connect(t, srv.url, "")
	mcpSearchJSON(t, c, "harbour ropes")
	if code, fams := scrape(t, m[1], ""); code != http.StatusOK || sample(fams, "mcpvec_mcp_requests_total", map[string]string{"tool": "search", "outcome": "ok"}) != 1 {
		t.Errorf("GET %s: %d", m[1], code)
	}
	if code, _ := scrape(t, strings.TrimSuffix(srv.url, "/mcp")+"/metrics", ""); code != http.StatusNotFound {
		t.Errorf("GET /metrics on the serve address with --metrics-addr: %d, want 404", code)
	}
	if !strings.Contains(waitOutput(t, srv.Stderr, "query="), `query="harbour ropes"`) {
		t.Errorf("--log-queries: no query in the access line:\n%s", srv.Stderr)
	}
}
