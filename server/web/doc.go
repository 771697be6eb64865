// Package web is mcpvec's web interface: server-rendered pages (html/template
// and embed, no build step, no CDN) to look at the library, try searches,
// add and remove documents, connect assistants and watch their calls.
//
// Routes (server.Options.Web mounts the Handler at "/" and "/ui/"):
//
//	GET  /                   the library: documents, sort and filter, totals
//	GET  /ui/doc/<id>        one document page by page, passage boundaries,
//	                         a page list; ?page=N jumps to page N
//	GET  /ui/search          the MCP search tool's query path, with rank,
//	                         score and retriever, the query's words marked
//	                         (library.Highlight); &page=N pages on
//	GET  /ui/add             upload form;  POST /ui/upload (what became of
//	                         each file: Upload), POST /ui/delete
//	GET  /ui/connect         URLs and snippets; POST /ui/connect/test
//	GET  /ui/activity        recent MCP tool calls (Activity)
//	GET  /ui/signin          POST /ui/signin, POST /ui/signout
//	GET  /ui/static/<file>   CSS, the small progressive script, the icon
//
// It reads through the live library (the one query path) and writes through
// it too: uploads go to Options.Ingest, which cmd wires to the CLI's ingest
// pipeline, and deletes call library.Remove then Save, as `mcpvec rm` does.
// Package web never imports ingest.
//
// # Caveats
//
//   - A Handler is safe for concurrent use. Sessions live in memory: a
//     restart signs everybody out.
//   - Every visitor gets a session cookie (HttpOnly, SameSite=Strict, Secure
//     when the request came over https) holding a CSRF token; every POST
//     must carry it in the "csrf" field or gets 403. Changes are POST only.
//   - With Options.Exposed every page except sign-in and static files needs
//     an owner session: the owner passphrase (Options.CheckOwner) or the
//     static token. At most 5 wrong attempts a minute are checked; then 429.
//   - Responses carry a strict Content-Security-Policy (default-src 'self',
//     no inline script or style), Referrer-Policy: no-referrer, nosniff and
//     frame-ancestors 'none', so neither the secret path nor a token leaves
//     the origin.
//   - Upload bodies are capped at Options.MaxUpload, other forms at 1 MiB.
//   - The connection test calls the MCP endpoint over the connection's own
//     local address (loopback HTTP), with the static token when there is
//     one; with OAuth alone it reports that the endpoint wants a token.
package web
