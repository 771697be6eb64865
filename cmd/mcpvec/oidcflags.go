package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/server/oidc"
)

// oidcSecretEnv holds the upstream client secret, kept off the command line.
const oidcSecretEnv = "MCPVEC_OIDC_CLIENT_SECRET"

// authFlags are serve's sign-in flags: --oauth and, for teams, the
// upstream OpenID provider people sign in at.
type authFlags struct {
	on                                  bool
	issuer, clientID, secret, secretArg string
	secretFile, groupsClaim, scopes     string
	// admit, when set, becomes oauth.Config.Admit: who may be granted
	// which resource (the allow-list).
	admit func(p identity.Person, resource string) error
}

// registerOIDC registers the upstream provider's flags on fs.
func registerOIDC(fs *flag.FlagSet, e *env) *authFlags {
	f := &authFlags{secret: e.getenv(oidcSecretEnv)}
	fs.StringVar(&f.issuer, "oidc-issuer", "", "with --oauth: people sign in at this OpenID provider (its issuer `URL`, e.g. https://accounts.google.com) instead of you approving each sign-in; register PUBLIC_URL/oauth/callback there")
	fs.StringVar(&f.clientID, "oidc-client-id", "", "the client `ID` mcpvec is registered with at the --oidc-issuer")
	fs.StringVar(&f.secretArg, "oidc-client-secret", "", "its client `SECRET` (better: $"+oidcSecretEnv+" or --oidc-client-secret-file, which stay out of the process list)")
	fs.StringVar(&f.secretFile, "oidc-client-secret-file", "", "read the client secret from `FILE`")
	fs.StringVar(&f.groupsClaim, "oidc-groups-claim", oidc.DefaultGroupsClaim, "the ID token `CLAIM` holding the person's groups")
	fs.StringVar(&f.scopes, "oidc-scopes", "email profile", "the `SCOPES` asked for besides openid, space- or comma-separated (Dex wants groups for its groups claim)")
	return f
}

// check refuses provider flags that cannot work; on is --oauth.
func (f *authFlags) check(on bool) error {
	f.on = on
	switch {
	case f.issuer == "" && (f.clientID != "" || f.secretArg != "" || f.secretFile != ""):
		return errors.New("--oidc-client-id and --oidc-client-secret need --oidc-issuer")
	case f.issuer == "":
		return nil
	case !on:
		return errors.New("--oidc-issuer needs --oauth (and --public-url)")
	case f.clientID == "":
		return errors.New("--oidc-issuer needs --oidc-client-id")
	}
	return nil
}

// clientSecret returns the secret from the flag, the file or the
// environment, in that order.
func (f *authFlags) clientSecret() (string, error) {
	switch {
	case f.secretArg != "":
		return f.secretArg, nil
	case f.secretFile != "":
		b, err := os.ReadFile(f.secretFile)
		if err != nil {
			return "", fmt.Errorf("--oidc-client-secret-file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return f.secret, nil
}

// upstream returns the provider people sign in at, after fetching its
// discovery document; nil without --oidc-issuer.
func (f *authFlags) upstream() (oauth.Upstream, error) {
	if f == nil || f.issuer == "" {
		return nil, nil
	}
	secret, err := f.clientSecret()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := oidc.New(ctx, oidc.Config{Issuer: f.issuer, ClientID: f.clientID, ClientSecret: secret,
		GroupsClaim: f.groupsClaim, Scopes: strings.FieldsFunc(f.scopes, func(r rune) bool { return r == ' ' || r == ',' })})
	if err != nil {
		return nil, fmt.Errorf("--oidc-issuer: %w", err)
	}
	return p, nil
}
