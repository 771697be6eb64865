package main

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/audit"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/server/web"
)

// teamWeb gives the web page of a team's serve what the MCP endpoint has:
// the allow-list and the library's name for it, the audit trail for the
// activity view, and sign-in at the same OpenID provider as --oidc-issuer
// (its redirect URI for the page is PUBLIC_URL/ui/signin/callback, beside
// /oauth/callback for connectors).
func teamWeb(wo *web.Options, st *serveState, o *server.Options) {
	wo.Policy, wo.Name = o.Policy, o.Library
	if st.audit != nil {
		wo.Audit = auditView{dir: st.audit.log.Dir()}
	}
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

// auditView reads the audit trail in dir for the web page's activity
// view. It is safe for concurrent use (audit.Read is, beside the writer).
type auditView struct{ dir string }

// failedOutcomes are the audit outcomes the activity view marks.
var failedOutcomes = []string{server.OutcomeToolError, server.OutcomeFailed, "forbidden", string(web.Failed)}

// Entries returns the newest n entries of user ("" everyone) since since.
func (v auditView) Entries(_ context.Context, user string, since time.Time, n int) ([]web.AuditEntry, error) {
	es, err := audit.Read(v.dir, audit.Filter{User: user, Since: since})
	out := make([]web.AuditEntry, 0, min(n, len(es)))
	for i := len(es) - 1; i >= 0 && len(out) < n; i-- {
		e := es[i]
		out = append(out, web.AuditEntry{Time: e.Time, User: e.User, Library: e.Library, Action: e.Action,
			Target: cmp.Or(e.Query, e.Target), Failed: slices.Contains(failedOutcomes, e.Outcome)})
	}
	return out, err
}
