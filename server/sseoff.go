package server

import (
	"io"
	"net/http"
)

// SSEDeprecation is the start-up line announcing that the legacy HTTP+SSE
// transport is deprecated; serve prints it while the transport is on.
const SSEDeprecation = "SSE transport at /sse is deprecated by the MCP spec (2025-03-26); clients should use /mcp; --no-sse turns it off"

// sseGoneBody is what /sse and /message answer when Options.NoSSE is set.
const sseGoneBody = "the legacy HTTP+SSE transport is switched off on this server (serve --no-sse): use the Streamable HTTP endpoint /mcp\n"

// sseGone answers a legacy SSE request when the transport is switched off:
// 410 Gone, a plain-text line saying where to go instead. It is safe for
// concurrent use.
var sseGone http.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusGone)
	io.WriteString(w, sseGoneBody)
})
