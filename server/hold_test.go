package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// serveHeld serves h behind a holding deadlineWriter, as streamDeadlines
// does for a POST, and the panic recovery of the real chain; it returns
// the answer to one POST.
func serveHeld(t *testing.T, h http.HandlerFunc) (*http.Response, string) {
	t.Helper()
	s := &Server{opts: Options{WriteTimeout: 5 * time.Second}, log: quietLogger(t)}
	srv := httptest.NewServer(s.recoverPanics(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := s.withWriteDeadline(w, nil)
		dw.hold = true
		h(dw, r)
		dw.finish()
	})))
	t.Cleanup(srv.Close)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func TestHoldJSON(t *testing.T) {
	big := strings.Repeat("x", maxHeld)
	for _, tc := range []struct {
		name    string
		h       http.HandlerFunc
		status  int
		body    string
		chunked bool // sent as it came, not held
	}{
		{"json in parts", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"a":`)
			io.WriteString(w, strings.Repeat("1", 9000)+"}\n")
		}, 200, `{"a":` + strings.Repeat("1", 9000) + "}\n", false},
		{"json error status", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, strings.Repeat(" ", 5000)+`{}`)
		}, 404, strings.Repeat(" ", 5000) + `{}`, false},
		{"json too long to hold", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `"`)
			io.WriteString(w, big+`"`)
		}, 200, `"` + big + `"`, true},
		{"json flushed", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, strings.Repeat("2", 3000))
			w.(http.Flusher).Flush()
			io.WriteString(w, strings.Repeat("3", 3000))
		}, 200, strings.Repeat("2", 3000) + strings.Repeat("3", 3000), true},
		{"event stream", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "data: "+strings.Repeat("4", 3000)+"\n\n")
			w.(http.Flusher).Flush()
		}, 200, "data: " + strings.Repeat("4", 3000) + "\n\n", true},
		{"accepted without a body", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusAccepted)
		}, 202, "", false},
		{"panic after a held write", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"half":`)
			panic("boom")
		}, 500, "internal error\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := serveHeld(t, tc.h)
			if resp.StatusCode != tc.status || body != tc.body {
				t.Fatalf("got %d %.40q (%d bytes); want %d %.40q (%d bytes)", resp.StatusCode, body, len(body), tc.status, tc.body, len(tc.body))
			}
			chunked := len(resp.TransferEncoding) > 0
			if chunked != tc.chunked || !chunked && resp.ContentLength != int64(len(body)) {
				t.Errorf("Transfer-Encoding %q, Content-Length %d; want chunked %v", resp.TransferEncoding, resp.ContentLength, tc.chunked)
			}
		})
	}
}
