package telemetry

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's own series; the names are mcpvec_*.
type metrics struct {
	calls   *prometheus.CounterVec   // tool, outcome
	latency *prometheus.HistogramVec // tool
	stages  *prometheus.HistogramVec // stage
	http    *prometheus.CounterVec   // route, method, code
	written *prometheus.CounterVec   // source
	removed *prometheus.CounterVec   // source
	grants  *prometheus.CounterVec   // result
}

// latencyBuckets span a cached lexical search (100µs) to a slow remote
// embedder or reranker (10s).
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpvec_mcp_requests_total",
			Help: "MCP tool calls by tool and outcome (ok, tool_error, failed; refused: turned away before MCP)."}, []string{"tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mcpvec_mcp_request_duration_seconds",
			Help: "MCP tool call latency by tool.", Buckets: latencyBuckets}, []string{"tool"}),
		stages: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "mcpvec_search_stage_duration_seconds",
			Help: "Search stage latency: first_stage (embed, candidates, fusion), rerank, snippets.", Buckets: latencyBuckets}, []string{"stage"}),
		http: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpvec_http_requests_total",
			Help: "HTTP requests by route, method and status code."}, []string{"route", "method", "code"}),
		written: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpvec_documents_written_total",
			Help: "Documents added or updated by source (sync, watch, upload)."}, []string{"source"}),
		removed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpvec_documents_removed_total",
			Help: "Documents removed by source (sync, watch)."}, []string{"source"}),
		grants: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "mcpvec_oauth_grants_total",
			Help: "OAuth sign-ins by result (issued, refused)."}, []string{"result"}),
	}
	reg.MustRegister(m.calls, m.latency, m.stages, m.http, m.written, m.removed, m.grants)
	return m
}

func statusText(code int) string { return strconv.Itoa(code) }

// sizeCollector reads the index sizes at each scrape.
type sizeCollector struct {
	sizes func(context.Context) (Sizes, error)
	log   *slog.Logger
}

var (
	docsDesc     = prometheus.NewDesc("mcpvec_index_documents", "Documents in the library.", nil, nil)
	passagesDesc = prometheus.NewDesc("mcpvec_index_passages", "Passages in the library.", nil, nil)
	vectorsDesc  = prometheus.NewDesc("mcpvec_index_vectors", "Passages in the vector index (0 while its load is deferred).", nil, nil)
)

func (c *sizeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- docsDesc
	ch <- passagesDesc
	ch <- vectorsDesc
}

// Collect reads the sizes within a few seconds; a failed read leaves the
// gauges out of this scrape (logged).
func (c *sizeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.sizes(ctx)
	if err != nil {
		c.log.Warn("metrics: index sizes", "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(docsDesc, prometheus.GaugeValue, float64(s.Documents))
	ch <- prometheus.MustNewConstMetric(passagesDesc, prometheus.GaugeValue, float64(s.Passages))
	ch <- prometheus.MustNewConstMetric(vectorsDesc, prometheus.GaugeValue, float64(s.Vectors))
}
