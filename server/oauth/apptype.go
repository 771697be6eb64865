package oauth

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// Application types of a registered client (RFC 7591 client metadata as
// defined by OpenID Connect Dynamic Client Registration, required of MCP
// clients by the 2026-07-28 authorization spec). They decide which
// redirect URIs the client may register.
const (
	// AppWeb is a client reached through the web: https redirect URIs only.
	AppWeb = "web"
	// AppNative is an app on the user's device: https, http on a loopback
	// address (RFC 8252 §7.3) or a private-use URI scheme (§7.1).
	AppNative = "native"
)

// checkApplicationType checks reg's application_type against its redirect
// URIs and sets it when absent. OIDC makes "web" the default; clients that
// predate the field and register a loopback or private-use redirect are
// native apps, so an absent type is inferred from the redirect URIs
// instead, and every registration accepted before stays accepted. It
// returns an RFC 7591 error code and description, or "", "".
func checkApplicationType(reg *registration) (code, msg string) {
	switch reg.ApplicationType {
	case "":
		reg.ApplicationType = inferApplicationType(reg.RedirectURIs)
	case AppWeb, AppNative:
	default:
		return "invalid_client_metadata", fmt.Sprintf("application_type %q is not supported: give %q or %q", reg.ApplicationType, AppWeb, AppNative)
	}
	for _, raw := range reg.RedirectURIs {
		u, _ := url.Parse(raw) // checkRedirectURI parsed it
		if reg.ApplicationType == AppWeb && u.Scheme != "https" {
			return "invalid_redirect_uri", fmt.Sprintf("redirect uri %q: a web client must use https (register application_type %q for a loopback or app-scheme redirect)", raw, AppNative)
		}
	}
	return "", ""
}

// inferApplicationType is AppNative when any redirect URI is a loopback
// http or private-use scheme one, else AppWeb.
func inferApplicationType(uris []string) string {
	for _, raw := range uris {
		if u, err := url.Parse(raw); err == nil && u.Scheme != "https" {
			return AppNative
		}
	}
	return AppWeb
}

// privateUseScheme reports whether scheme is a private-use URI scheme a
// native app may claim: a reverse domain name (RFC 8252 §7.1), so never a
// web scheme nor one a browser runs (javascript, data, file, ...), none of
// which contains a dot.
func privateUseScheme(scheme string) bool {
	return strings.Contains(scheme, ".") && scheme != "http" && scheme != "https"
}

// redirectSchemeOK reports whether u's scheme may be registered by some
// client: https, http on a loopback host, or a private-use scheme.
func redirectSchemeOK(u *url.URL) bool {
	switch {
	case u.Scheme == "https":
		return u.Host != ""
	case u.Scheme == "http":
		return loopback.Host(u.Hostname())
	default:
		return privateUseScheme(u.Scheme) && u.Host == "" && u.Opaque == "" && u.Path != ""
	}
}
