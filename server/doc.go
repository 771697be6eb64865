// Package server serves an mcpvec library over the Model Context Protocol
// for ChatGPT deep research, the OpenAI Responses API, Claude and Codex.
//
// It exposes exactly two read-only tools in OpenAI's deep-research shape:
// search(query) returning {"results":[{id,title,url,text}]} and fetch(id)
// returning {id,title,text,url,metadata}. Each result is sent both as
// structuredContent and as the same JSON in one text content item. The
// objects come from the one query path, package library, through the
// small Library interface declared here.
//
// Transports, all on one http.Handler (see Server.Handler):
//
//	/mcp, /mcp/          streamable HTTP (protocol 2025-03-26 … newest)
//	/sse, /sse/          legacy HTTP+SSE, with its message endpoint /message
//	/healthz             "ok"
//	/docs/<id>/<sig>     the original file of one document (signed link)
//	/docs/<id>/<sig>/view  its extracted text as HTML, unit by unit
//	/, /ui/              Options.Web (the web page, package server/web),
//	                     which does its own sign-in; Options.Observe hears
//	                     every tool call (its activity page)
//
// With Options.SecretPath the MCP routes move under "/<secret>/" and the root
// ones answer 404. With Options.Mount ("/papers") every route above but
// /healthz moves under it (the web page's static files stay at /ui/static/),
// and a Group serves several such servers, one library each, on one
// address; /mcp and /sse then name no library and answer 404. Server.ServeStdio
// speaks MCP on a reader/writer pair.
//
// Citations: when a result has no source URL, the server links to its own
// /docs route, "<public base>/docs/<docID>/<hmac>#page=N" for a PDF, and
// "<public base>/docs/<docID>/<hmac>/view#<anchor>" for any other document:
// the text view (library.View) at the unit (slide-3, sheet-2, chapter-2,
// page-2) holding the best match, or at the passage (passage-4) when the
// document has one unit. The public base is Options.PublicURL, else the Host
// header (X-Forwarded-* are not trusted). The link is signed with
// Options.LinkKey, so it opens in a plain browser without the bearer token,
// reveals only that document and cannot be forged for another one.
//
// # Caveats
//
//   - DNS-rebinding guard: a request arriving on a loopback connection must
//     carry a loopback Host or exactly the host of PublicURL; any request
//     with an Origin header must come from a loopback origin, PublicURL's
//     origin or Options.AllowedOrigins (default: chatgpt.com, claude.ai).
//     A tunnel without PublicURL therefore gets 403 on every route.
//     "Origin: null" (a no-referrer page's form post) is accepted only on
//     the web routes, which check a CSRF token instead. Allowed
//     origins get CORS headers, and their preflights are answered without
//     the token (the actual request still needs it).
//   - A path in PublicURL is assumed to be stripped by the proxy in front;
//     the server itself always serves at "/".
//   - With a Token, every route except /docs needs "Authorization: Bearer"
//     (also /healthz). /docs links are protected by their signature only:
//     anyone holding a link can read that one document.
//   - Memory and time per client are bounded: at most MaxSessions live
//     streamable HTTP sessions (beyond it one is ended: one that never made
//     a call after initialize if any, from the client with the most
//     sessions, least recently used first) and none idle past
//     SessionIdleTimeout — a request on an ended session gets 404 and the
//     client initializes again; at most MaxSSEStreams legacy SSE streams,
//     MaxSSEStreamsPerClient per client address, each with a small socket
//     send buffer and closed when its client leaves MaxSSEPending answers
//     unread; every response write has a WriteTimeout deadline and every
//     request body a BodyTimeout deadline and MaxBodyBytes cap (413, 408,
//     and JSON-RPC batches 400, each with a JSON-RPC -32600 error); a
//     client address may have MaxBodiesPerClient bodies in flight at once
//     (everyone 64 times that), beyond which a request is refused with 503
//     before its body is read (the web routes included); and it may hold
//     MaxConnsPerClient connections open at once, in any phase, the rest
//     being closed when accepted (Serve).
//   - A streamable HTTP POST's JSON answer (up to 1 MiB, not flushed) is held
//     until the handler returns and sent with a Content-Length rather than
//     chunked; a text/event-stream answer goes out as it is written.
//   - /docs streams the original with http.ServeContent (Range, HEAD,
//     If-None-Match, If-Modified-Since) from store.OriginalReader, which
//     holds no read transaction between pieces, so a slow reader neither
//     pins the file in memory nor blocks the library's writers.
//   - The view is html/template output of hostile text: escaped, with a
//     Content-Security-Policy of default-src 'none' plus the hash of its one
//     inline stylesheet (server/web's style.css, embedded), so no script
//     runs and it needs no other route. A third path segment other than
//     "view" still serves the original (a file name for downloads).
//   - fetch metadata "source" is the file name only, unless ShowPaths: the
//     owner's folder layout is not sent to remote clients.
//   - With Options.Auth (an Authorizer such as server/oauth's), its routes
//     are mounted at /.well-known/ and /oauth/ (unprotected, at the root even
//     with a secret path), and every other route except /docs accepts its
//     access tokens; Options.Token, when set too, is tried first.
//   - A nil LinkKey makes a random key, so links die with the process; pass
//     a stable key kept in the library.
//   - Instructions are rebuilt from Library.Summary for each new session
//     (initialize or server/discover), at most every 5 seconds, so documents
//     ingested while serving are named to new sessions. Tool descriptions
//     are written once, in New, and keep the counts and titles of that time.
//   - Search snippets are cut at 2000 characters and at most MaxResults
//     results are returned; fetch text is cut at MaxFetchChars with
//     metadata.truncated=true and metadata.next_id, the id ("<id>@<n>")
//     of the rest. The fetch metadata map is copied, never mutated.
//   - Tool mistakes (empty query, query too long, unknown id) are tool
//     results with isError; a failing library is a JSON-RPC error, logged.
//     Panics in tool handlers and HTTP handlers are recovered.
//   - ServeStdio uses mcp-go's single process-wide stdio session: run at most
//     one at a time per process. ServeStream serves the same protocol in a
//     session of its own per stream, any number at once (the stdio clients
//     a running server takes over its admin channel).
//   - Logs go to Options.Logger (slog); nothing is written to stdout except
//     the MCP stream of ServeStdio.
//   - A Server and its Handler are safe for concurrent use.
package server
