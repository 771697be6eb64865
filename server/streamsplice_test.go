package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/internal/reallib"
	"github.com/mcpvec/mcpvec/library"
)

// lineBytes is what mcp-go's stdio server writes for res, the answer to
// request id, less the newline.
func lineBytes(t testing.TB, id int64, res *mcp.CallToolResult) []byte {
	b, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), res))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStreamSpliceMatchesMCPGo checks that results spliced on a line
// transport are byte for byte the lines mcp-go writes without a splice,
// when several wait at once and their lines come in another order, and
// that other lines pass unchanged.
func TestStreamSpliceMatchesMCPGo(t *testing.T) {
	values := []any{spliceResponse(0), spliceResponse(1), spliceResponse(10),
		library.FetchResponse{ID: "a:1", Text: "x</script>", Metadata: map[string]any{"b": 1, "a": "\u2029"}}}
	ss := newStreamSplicer()
	ctx := context.WithValue(context.Background(), streamSpliceKey{}, ss)
	var lines, want [][]byte
	for i, v := range values {
		plain, err := structured(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, lineBytes(t, int64(i), plain))
		res, err := structured(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		line := lineBytes(t, int64(i), res)
		if bytes.Contains(line, []byte(`"results"`)) || bytes.Contains(line, []byte(`"metadata"`)) {
			t.Fatalf("the placeholder result holds the JSON: %s", line)
		}
		lines = append(lines, line)
	}
	for i := len(lines) - 1; i >= 0; i-- {
		got, ok := ss.fill(lines[i])
		if !ok || !bytes.Equal(got, want[i]) {
			t.Fatalf("line %d spliced (%v):\n%s\nwant\n%s", i, ok, got, want[i])
		}
		if again, ok := ss.fill(lines[i]); ok || !bytes.Equal(again, lines[i]) {
			t.Fatalf("line %d spliced twice: %s", i, again)
		}
	}
	unknown := append(append([]byte(nil), ss.prefix...), `99" `...)
	for _, p := range [][]byte{[]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`), unknown} {
		if got, ok := ss.fill(p); ok || !bytes.Equal(got, p) {
			t.Fatalf("fill(%q) = %q, %v", p, got, ok)
		}
	}
}

// TestStreamSpliceOverStdio speaks raw lines to ServeStdio and
// ServeStream: each search answer is exactly the line mcp-go writes for
// the handler's result without a splice.
func TestStreamSpliceOverStdio(t *testing.T) {
	s := MustNew(t, newFakeLib(), Options{Version: "golden"})
	for name, serve := range map[string]func(context.Context, io.Reader, io.Writer) error{"stdio": s.ServeStdio, "stream": s.ServeStream} {
		t.Run(name, func(t *testing.T) {
			toServerR, toServerW := io.Pipe()
			toClientR, toClientW := io.Pipe()
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- serve(ctx, toServerR, toClientW); toClientW.Close() }()
			defer func() { cancel(); toServerW.Close(); <-done }()
			out := bufio.NewReader(toClientR)
			send := func(line string) {
				if _, err := io.WriteString(toServerW, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			readLine(t, out)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for i, q := range []string{"impeller bolts", "bronze", ""} {
				id := int64(i + 2)
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":%q}}}`, id, q))
				var req mcp.CallToolRequest
				req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": q}
				plain, _, err := s.handleSearch(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := readLine(t, out), lineBytes(t, id, plain); !bytes.Equal(got, want) {
					t.Fatalf("search %q:\n%s\nwant\n%s", q, got, want)
				}
			}
		})
	}
}

func readLine(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	line, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return bytes.TrimSuffix(line, []byte("\n"))
}

// BenchmarkEncodeSearchLine measures what encoding a search result of 10
// passages costs a line transport (stdio): as mcp-go encodes the value,
// and spliced; cpu-ns/op is the process's CPU (the host is shared).
func BenchmarkEncodeSearchLine(b *testing.B) {
	v := spliceResponse(10)
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		cpu := reallib.StartCPU()
		for b.Loop() {
			res, _ := structured(context.Background(), v)
			lineBytes(b, 7, res)
		}
		cpu.Report(b)
	})
	ss := newStreamSplicer()
	ctx := context.WithValue(context.Background(), streamSpliceKey{}, ss)
	b.Run("spliced", func(b *testing.B) {
		b.ReportAllocs()
		cpu := reallib.StartCPU()
		for b.Loop() {
			res, _ := structured(ctx, v)
			line, _ := ss.fill(lineBytes(b, 7, res))
			putBuf(line)
		}
		cpu.Report(b)
	})
}
