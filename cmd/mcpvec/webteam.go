package main

import (
	"net/url"
	"strings"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/server/web"
)

// teamWeb gives the web page of a team's serve what the MCP endpoint has:
// the allow-list and the library's name for it, and sign-in at the same
// OpenID provider as --oidc-issuer (its redirect URI for the page is
// PUBLIC_URL/ui/signin/callback, beside /oauth/callback for connectors).
func teamWeb(wo *web.Options, o *server.Options) {
	wo.Policy, wo.Name = o.Policy, o.Library
	a, ok := o.Auth.(interface{ Upstream() oauth.Upstream }) // *oauth.Server or *oauth.Resource
	if !ok || a.Upstream() == nil {
		return
	}
	wo.SignIn = a.Upstream()
	if is, ok := wo.SignIn.(interface{ Issuer() string }); ok {
		wo.SignInName = providerName(is.Issuer())
	}
}

// providerName is how the sign-in button names the provider at issuer:
// the common ones by name, any other by its host.
func providerName(issuer string) string {
	u, err := url.Parse(issuer)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	host := u.Hostname()
	for domain, name := range map[string]string{"accounts.google.com": "Google", "login.microsoftonline.com": "Microsoft",
		"okta.com": "Okta", "github.com": "GitHub", "auth0.com": "Auth0"} {
		if host == domain || strings.HasSuffix(host, "."+domain) {
			return name
		}
	}
	return host
}
