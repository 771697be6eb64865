// Package oauth makes `mcpvec serve --oauth` a single-owner OAuth 2.1
// authorization server and lets the MCP routes check its tokens, so ChatGPT
// and Claude connectors sign in with the library owner's approval.
//
// Server serves, under the issuer (the public URL):
//
//	/.well-known/oauth-protected-resource[/<path>]  RFC 9728 resource metadata
//	/.well-known/oauth-authorization-server         RFC 8414 server metadata
//	/.well-known/openid-configuration               the same document
//	/oauth/register   RFC 7591 dynamic registration (public clients only)
//	/oauth/authorize  authorization code + PKCE S256, shows the consent page
//	/oauth/consent    the consent form: passphrase, deny, or continue after
//	                  `mcpvec auth approve CODE`
//	/oauth/callback   where the upstream OpenID provider (Config.Upstream)
//	                  sends the person back; then the consent page names them
//	/oauth/token      authorization_code and refresh_token grants
//	/oauth/revoke     RFC 7009 revocation
//
// Server.Authenticate checks a request's bearer token and Server.Challenge
// writes the 401 that points a client at the metadata. A client_id that is
// an https URL is a client ID metadata document, fetched and cached.
//
// All state lives in a Store, a few kinds of opaque records read and written
// in transactions; cmd/mcpvec backs it with the library file, so tokens of
// one library mean nothing to another library's server.
//
// # Caveats
//
//   - Tokens, codes and CSRF tokens are 256 random bits; only their SHA-256
//     is stored. Access tokens are also bound to the issuer's resources, so a
//     token survives neither a move to another library nor a change of the
//     public URL (clients then sign in again).
//   - Codes are single-use: any redemption attempt spends one, and a second
//     redemption revokes the grant the first one created. Refresh tokens
//     rotate; presenting a spent one revokes the whole grant.
//   - Revocation (Revoke, RevokeAll, the revocation endpoint) deletes the
//     grant and its tokens in one transaction; every request reads the Store,
//     so it takes effect on the next request.
//   - The owner passphrase is an Argon2id hash (64 MiB, 3 passes). Checks run
//     one at a time. Wrong ones are logged and counted per client (the
//     Config.ClientAddr of the request with the OAuth client id): after
//     Config.MaxFailures within Config.FailureWindow that client's are not
//     checked until the window passes, and after ten times as many from all
//     clients nobody's are; approval by command keeps working.
//   - Waiting sign-ins are counted per client too, and none is refused: a
//     client's newest replaces its oldest beyond a few, and past a global
//     ceiling the client holding the most gives way (see maxPending), so a
//     stranger cannot keep the owner from getting a consent page and code.
//   - Updates that write nothing are rolled back rather than committed, so
//     refused requests cost the Store no write.
//   - The consent page's CSP allows form posts to the issuer and, since
//     CSP level 3 checks the redirect after a form post too, the origin of
//     that request's registered redirect URI.
//   - Metadata documents are fetched over https only, without proxies or
//     redirects, from public addresses only (checked after DNS resolution on
//     every connection), within a size and time cap. MetadataOptions.
//     AllowLoopback is for tests.
//   - Only the scope "library:read" exists; other requested scopes are
//     ignored, since the server exposes nothing but reading.
//   - With Config.Upstream, /oauth/authorize sends the person to the
//     provider with the pending request's id as state; the callback takes
//     that sign-in out of the request in one transaction (a state works
//     once, and only in the browser holding the request's consent cookie),
//     has the ID token checked, asks Config.Admit, and only the person it
//     names may consent: the owner passphrase is not asked for. Admit is
//     asked again when the code is redeemed and at every refresh.
//   - A Server is safe for concurrent use. The package-level owner functions
//     (SetPassphrase, Approve, List, Revoke, RevokeAll) are as safe as the
//     Store they are given.
package oauth
