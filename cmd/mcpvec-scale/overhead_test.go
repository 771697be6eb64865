package main

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestNoopServerUnderLoad puts a small load of both clients on the no-op
// server the -overhead mode compares serve with: every call answered.
func TestNoopServerUnderLoad(t *testing.T) {
	ts := httptest.NewServer(noopHandler())
	defer ts.Close()
	for _, raw := range []bool{true, false} {
		f, err := runLoad(t.Context(), ts.URL+"/mcp", 3, 30, 10*time.Second, []string{"a", "b c"}, raw)
		if err != nil {
			t.Fatal(err)
		}
		if f.Requests != 30 || f.Errors != 0 {
			t.Fatalf("raw %v: %d calls, %d errors (%s)", raw, f.Requests, f.Errors, f.FirstError)
		}
	}
}

// TestOverheadMarkdown checks the table's columns: overhead is serve's CPU
// less the search's, capacity the ratio of the rates, and the tail p99
// over clients ÷ rate.
func TestOverheadMarkdown(t *testing.T) {
	c := config{library: "L", requests: 100, clients: []int{16}}
	r := overheadRound{
		Serve:       []loadFigures{{Clients: 16, PerSecond: 800, P50ms: 10, P99ms: 60, ServeCPUms: 0.9}},
		SearchCPUms: []float64{0.7},
		Noop:        loadFigures{PerSecond: 8000, ServeCPUms: 0.1},
	}
	var b strings.Builder
	overheadMarkdown(c, []overheadRound{r, r}, &b)
	if want := "| median | 800 | 10.00 | 60.00 | 0.900 | 0.700 | 0.200 | 8000 | 0.100 | 0.10 | 3.00 |"; !strings.Contains(b.String(), want) {
		t.Fatalf("no line %q in\n%s", want, b.String())
	}
}
