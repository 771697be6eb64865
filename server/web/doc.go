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
//	GET  /ui/activity        recent MCP tool calls (Activity) and the audit
//	                         trail (AuditLog): a person sees their own
//	GET  /ui/signin          POST /ui/signin, POST /ui/signout
//	GET  /ui/signin/start    off to the OpenID provider (Options.SignIn);
//	                         it sends the browser back to CallbackPath
//	GET  /ui/static/<file>   CSS, the small progressive script, the icon
//
// It reads through the live library (the one query path) and writes through
// it too: uploads go to Options.Ingest, which cmd wires to the CLI's ingest
// pipeline, and deletes call library.Remove then Save, as `mcpvec rm` does.
// Package web never imports ingest.
//
// # Caveats
//
//   - A Handler is safe for concurrent use. Signed-in sessions live in
//     memory: a restart signs everybody out. An anonymous visitor's session
//     is stored nowhere: its cookie is signed (HMAC with a per-process key)
//     and its CSRF token derived from it, so no flood of cookie-less
//     requests can fill a table or evict the session behind a sign-in form.
//   - Every visitor gets a session cookie (HttpOnly, SameSite=Strict, Secure
//     when the request came over https) holding a CSRF token; every POST
//     must carry it in the "csrf" field (an upload: the X-CSRF-Token header,
//     the csrf query parameter or the form's first part) or gets 403.
//     Changes are POST only.
//   - With Options.Exposed, or whenever Options.Token or CheckOwner is set
//     (the page is behind the same credential as /mcp; open only on an open
//     loopback server), every page except sign-in and static files needs an
//     owner session: the owner passphrase (Options.CheckOwner) or the
//     static token. Wrong guesses are counted per client address (5 a
//     minute, 100 a minute in all); past them a passphrase gets 429, but
//     the right token is always let in (it is no easier to guess here than
//     on /mcp).
//   - People: with Options.SignIn, the sign-in page also offers "Sign in
//     with <provider>". The state is signed with a binding cookie of the
//     browser that started (SameSite=Lax, 10 minutes) and the nonce and
//     PKCE verifier are derived from both, so nothing is stored until a
//     sign-in succeeds; a state is good for one sign-in. A person gets a
//     session only if Options.Policy lets them read some library here.
//     Every page asks Policy on every request (an edit of the allow-list
//     applies at once): read for the library, search and document pages
//     (403 otherwise), write for Add, uploads, removals and syncs (their
//     controls are not shown without it, and a POST is refused before its
//     body is read); Connect is the owner's. The switcher lists only the
//     libraries a person may read. The callback answers with a page that
//     moves on by itself, as the session cookie (SameSite=Strict) is not
//     sent on a redirect that the provider's cross-site one started.
//   - Nothing of a POST's body is read before the session is known to be
//     allowed (admit): a visitor who has not signed in gets 403 from the
//     cookie alone and the connection is closed, the body unread; only the
//     sign-in form (64 KiB at most) is read from anonymous visitors. Every
//     body has a read deadline (Options.BodyTimeout, 30 s); an upload, once
//     its CSRF token checked, gets BodyTimeout plus its length at 128 KiB/s.
//   - Responses carry a strict Content-Security-Policy (default-src 'self',
//     no inline script or style), Referrer-Policy: no-referrer, nosniff and
//     frame-ancestors 'none', so neither the secret path nor a token leaves
//     the origin.
//   - Upload bodies are capped at Options.MaxUpload, other forms at 64 KiB.
//     Uploads are streamed part by part into Options.UploadDir (never held
//     in memory), at most 1,000 files each, 2 at once per client and 4 in
//     all; SaveUploads then places them without replacing anything ("name
//     (2).ext" beside a different file of the same name).
//   - The connection test calls the MCP endpoint over the connection's own
//     local address (loopback HTTP), with the static token when there is
//     one; with OAuth alone it reports that the endpoint wants a token.
package web
