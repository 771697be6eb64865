package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// streamSpliceKey is the context key of a line transport's *streamSplicer.
type streamSpliceKey struct{}

// maxStreamPending bounds the results a streamSplicer holds for lines not
// yet written; beyond it, results take mcp-go's own encoding. A result
// whose line is never written (mcp-go drops the answer to a cancelled
// request) stays until the transport ends.
const maxStreamPending = 64

// streamSplicer is splice for the newline-delimited transports (ServeStdio
// and ServeStream), where one session's requests run concurrently and
// their answers are written one line each: every result gets placeholders
// of its own number, `"mcpvec-splice-<random>-<n>"` for the text item and
// `"mcpvec-splice-<random>-<n>-s"` for the structured content, and fill
// replaces them in the line that carries them with the JSON the handler
// encoded and its JSON-string form. Without it mcp-go encodes the
// structured content by reflection and the text by encoding/json, and
// checks and compacts the whole result byte by byte (TestStreamSplice
// checks the bytes are the same). It is safe for concurrent use.
type streamSplicer struct {
	prefix []byte // `"mcpvec-splice-<random>-`

	mu      sync.Mutex
	next    uint64
	pending map[uint64][]byte // JSON waiting for its line, by number
}

func newStreamSplicer() *streamSplicer {
	return &streamSplicer{prefix: []byte(`"mcpvec-splice-` + rand.Text() + `-`), pending: make(map[uint64][]byte)}
}

// streamSplicerFrom returns the splicer of ctx's transport, or nil.
func streamSplicerFrom(ctx context.Context) *streamSplicer {
	ss, _ := ctx.Value(streamSpliceKey{}).(*streamSplicer)
	return ss
}

// result returns the placeholder result that stands for structured (the
// JSON of a result's structured content, which fill gives to putBuf once
// copied), or nil when too many results wait already.
func (ss *streamSplicer) result(structured []byte) *mcp.CallToolResult {
	ss.mu.Lock()
	if len(ss.pending) >= maxStreamPending {
		ss.mu.Unlock()
		return nil
	}
	n := ss.next
	ss.next++
	ss.pending[n] = structured
	ss.mu.Unlock()
	tok := strconv.AppendUint(append([]byte(nil), ss.prefix...), n, 10)
	res := mcp.NewToolResultStructured(nil, string(tok[1:]))
	res.RawStructuredContent = append(tok, `-s"`...)
	return res
}

// fill returns line with every placeholder replaced, and true, when it
// holds any; the result is from getBuf, for the caller to give back once
// written. Otherwise it returns line and false.
func (ss *streamSplicer) fill(line []byte) ([]byte, bool) {
	i := bytes.Index(line, ss.prefix)
	if i < 0 {
		return line, false
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []byte
	var done []uint64
	for i >= 0 {
		st, n, end, structured := ss.placeholder(line, i)
		if st == nil {
			break // not one of ours after all: leave the rest as it is
		}
		if out == nil {
			out = getBuf(len(line) + 2*len(st) + len(st)/8 + 2)
		}
		out = append(out, line[:i]...)
		if structured {
			out = append(out, st...)
			done = append(done, n)
		} else {
			out = appendJSONString(out, st)
		}
		line = line[end:]
		i = bytes.Index(line, ss.prefix)
	}
	if out == nil {
		return line, false
	}
	for _, n := range done {
		putBuf(ss.pending[n])
		delete(ss.pending, n)
	}
	return append(out, line...), true
}

// placeholder reads the placeholder at line[i:] (which starts with
// prefix): the JSON it stands for, its number, where it ends and whether
// it is the structured one; nil JSON when it is none pending. ss.mu is
// held.
func (ss *streamSplicer) placeholder(line []byte, i int) (st []byte, n uint64, end int, structured bool) {
	j := i + len(ss.prefix)
	k := j
	for k < len(line) && '0' <= line[k] && line[k] <= '9' {
		k++
	}
	n, err := strconv.ParseUint(string(line[j:k]), 10, 64)
	if err != nil {
		return nil, 0, 0, false
	}
	switch rest := line[k:]; {
	case bytes.HasPrefix(rest, []byte(`-s"`)):
		structured, end = true, k+3
	case bytes.HasPrefix(rest, []byte(`"`)):
		end = k + 1
	default:
		return nil, 0, 0, false
	}
	return ss.pending[n], n, end, structured
}

// spliceWriter is a line transport's output: each Write (one message, as
// mcp-go's stdio server writes them) has its placeholders filled first.
type spliceWriter struct {
	w  io.Writer
	ss *streamSplicer
}

// Write writes p with its placeholders filled, and reports len(p) written
// when the whole of it was.
func (sw spliceWriter) Write(p []byte) (int, error) {
	out, ok := sw.ss.fill(p)
	if !ok {
		return sw.w.Write(p)
	}
	_, err := sw.w.Write(out)
	putBuf(out)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}
