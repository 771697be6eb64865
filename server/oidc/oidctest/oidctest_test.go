package oidctest_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// TestProviderSignsIn drives the provider's code flow as a browser would:
// the right password comes back to the redirect URI with a code and the
// state, a wrong one is refused.
func TestProviderSignsIn(t *testing.T) {
	const redirect = "http://127.0.0.1:9/cb"
	p := oidctest.Start(t, []string{redirect})
	q := url.Values{"client_id": {p.ClientID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"scope": {"openid email"}, "state": {"st-1"}}
	authURL := p.Issuer + "auth?" + q.Encode()
	back, err := p.Authorize(context.Background(), authURL, oidctest.Ann.Username, oidctest.Ann.Password)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Scheme+"://"+back.Host+back.Path, redirect; got != want {
		t.Errorf("sent back to %q, want %q", got, want)
	}
	if back.Query().Get("code") == "" || back.Query().Get("state") != "st-1" {
		t.Errorf("callback query %q lacks the code or state", back.RawQuery)
	}
	_, err = p.Authorize(context.Background(), authURL, oidctest.Ann.Username, "wrong")
	if !errors.Is(err, oidctest.ErrLogin) {
		t.Errorf("wrong password: err = %v, want ErrLogin", err)
	}
}
