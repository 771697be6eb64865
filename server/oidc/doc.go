// Package oidc is mcpvec's OpenID Connect relying party: it sends a person
// to the team's identity provider (Google Workspace, Microsoft Entra, Okta,
// Keycloak, Dex, ...) and turns the provider's answer into an
// identity.Person, with github.com/coreos/go-oidc/v3 and
// golang.org/x/oauth2 doing the protocol.
//
// A Provider learns the provider's endpoints from its discovery document
// once, at New. Its signing keys are fetched from the JWKS endpoint on
// first use and fetched again whenever a token names a key not yet seen, so
// the provider can rotate them. Every sign-in uses the authorization code
// flow with PKCE (S256), a nonce bound into the ID token, and a state the
// caller keeps (NewRequest makes all three).
//
// # Caveats
//
//   - The caller keeps the state, nonce and verifier of a sign-in between
//     AuthURL and Exchange, checks the state it gets back, and uses each
//     only once: this package holds no per-sign-in state.
//   - Exchange checks the ID token (signature, issuer, audience, authorized
//     party, expiry, nonce); it does not decide who may do what: that is the
//     caller's identity.Policy.
//   - A Provider is safe for concurrent use.
package oidc
