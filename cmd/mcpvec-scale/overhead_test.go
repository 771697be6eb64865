package main

import (
	"net/http/httptest"
	"slices"
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

// TestFIFOTail checks the queueing model against cases worked by hand: equal
// service times give every call the same latency (ratio 1), and one call
// in a hundred ten times as long makes the p99 its own wait plus its
// service.
func TestFIFOTail(t *testing.T) {
	ms := time.Millisecond
	equal := make([]time.Duration, 1600)
	for i := range equal {
		equal[i] = ms
	}
	if got := fifoTail(equal, 16, 2); got < 0.99 || got > 1.01 {
		t.Errorf("equal service times: %.3f, want 1", got)
	}
	if got := fifoTail(equal, 1, 2); got < 0.99 || got > 1.01 {
		t.Errorf("one client: %.3f, want 1", got)
	}
	spread := slices.Clone(equal)
	for i := 50; i < len(spread); i += 100 {
		spread[i] = 10 * ms
	}
	// A mean service of 1.09 ms: 16 clients wait ~7 services, the long
	// call then runs 10 ms: p99 ≈ 17 ms against 16 ÷ rate ≈ 8.7 ms.
	if got := fifoTail(spread, 16, 2); got < 1.5 || got > 2.5 {
		t.Errorf("one call in 100 ten times as long: %.3f, want about 2", got)
	}
	if got := fifoTail(nil, 16, 2); got != 0 {
		t.Errorf("no service times: %v, want 0", got)
	}
}
