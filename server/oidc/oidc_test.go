package oidc

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/oidc/oidctest"
)

// testRedirect is where the provider sends the browser back; Authorize
// stops there without requesting it.
const testRedirect = "http://127.0.0.1:9/cb"

// newRP builds a relying party for kit's client id (or another one).
func newRP(t *testing.T, kit *oidctest.Provider, clientID string, now func() time.Time) *Provider {
	t.Helper()
	p, err := New(context.Background(), Config{Issuer: kit.Issuer, ClientID: clientID,
		ClientSecret: kit.ClientSecret, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// signIn runs a sign-in of u at kit for rp and returns the code and the
// sign-in's request.
func signIn(t *testing.T, kit *oidctest.Provider, rp *Provider, u oidctest.User) (string, Request) {
	t.Helper()
	req, err := NewRequest()
	if err != nil {
		t.Fatal(err)
	}
	back, err := kit.Authorize(context.Background(), rp.AuthURL(req.State, req.Nonce, req.Verifier, testRedirect),
		u.Username, u.Password)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Query().Get("state"); got != req.State {
		t.Fatalf("state came back as %q, want %q", got, req.State)
	}
	return back.Query().Get("code"), req
}

// TestSignInAtRealProvider signs Ann in at the real provider: the person
// carries her subject, the provider's issuer and the e-mail address and
// name the userinfo endpoint adds; the code does not work twice.
func TestSignInAtRealProvider(t *testing.T) {
	kit := oidctest.Start(t, []string{testRedirect})
	rp := newRP(t, kit, kit.ClientID, nil)
	code, req := signIn(t, kit, rp, oidctest.Ann)
	got, err := rp.Exchange(context.Background(), code, req.Verifier, req.Nonce, testRedirect)
	if err != nil {
		t.Fatal(err)
	}
	want := identity.Person{Issuer: kit.Issuer, Subject: oidctest.Ann.ID, Email: oidctest.Ann.Email,
		EmailVerified: true, Name: "Ann Lee"}
	if got.Issuer != want.Issuer || got.Subject != want.Subject || got.Email != want.Email ||
		got.EmailVerified != want.EmailVerified || got.Name != want.Name {
		t.Errorf("person = %+v, want %+v", got, want)
	}
	_, err = rp.Exchange(context.Background(), code, req.Verifier, req.Nonce, testRedirect)
	if !errors.Is(err, ErrExchange) {
		t.Errorf("replayed code: err = %v, want ErrExchange", err)
	}
}

// TestAttacksAtRealProvider tries the attacks a relying party must hold
// against with real tokens from real providers.
func TestAttacksAtRealProvider(t *testing.T) {
	kit := oidctest.Start(t, []string{testRedirect})
	rp := newRP(t, kit, kit.ClientID, nil)
	ctx := context.Background()
	t.Run("expired", func(t *testing.T) {
		late := newRP(t, kit, kit.ClientID, func() time.Time { return time.Now().Add(2 * time.Hour) })
		code, req := signIn(t, kit, late, oidctest.Ann)
		_, err := late.Exchange(ctx, code, req.Verifier, req.Nonce, testRedirect)
		wantRefusal(t, err, ErrExpired)
	})
	t.Run("nonce mismatch", func(t *testing.T) {
		code, req := signIn(t, kit, rp, oidctest.Ann)
		_, err := rp.Exchange(ctx, code, req.Verifier, "another-sign-in-nonce", testRedirect)
		wantRefusal(t, err, ErrNonce)
	})
	t.Run("wrong PKCE verifier", func(t *testing.T) {
		code, req := signIn(t, kit, rp, oidctest.Ann)
		_, err := rp.Exchange(ctx, code, req.Verifier+"x", req.Nonce, testRedirect)
		if !errors.Is(err, ErrExchange) {
			t.Errorf("err = %v, want ErrExchange", err)
		}
	})
	t.Run("wrong audience", func(t *testing.T) {
		other := newRP(t, kit, oidctest.OtherClient, nil)
		raw, nonce := rawIDToken(t, kit, other)
		_, _, err := rp.verify(ctx, raw, nonce)
		wantRefusal(t, err, ErrAudience)
	})
	t.Run("issuer swap", func(t *testing.T) {
		kit2 := oidctest.Start(t, []string{testRedirect})
		raw, nonce := rawIDToken(t, kit2, newRP(t, kit2, kit2.ClientID, nil))
		_, _, err := rp.verify(ctx, raw, nonce)
		wantRefusal(t, err, ErrIssuer)
	})
	t.Run("forged signature", func(t *testing.T) {
		raw := forge(t, map[string]any{"iss": kit.Issuer, "aud": kit.ClientID, "sub": oidctest.Ann.ID,
			"nonce": "n", "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()})
		_, _, err := rp.verify(ctx, raw, "n")
		wantRefusal(t, err, ErrSignature)
	})
}

// rawIDToken signs Ann in for rp at kit and returns the raw ID token the
// token endpoint answers and its nonce.
func rawIDToken(t *testing.T, kit *oidctest.Provider, rp *Provider) (string, string) {
	t.Helper()
	code, req := signIn(t, kit, rp, oidctest.Ann)
	_, raw, err := rp.exchange(context.Background(), code, req.Verifier, testRedirect)
	if err != nil {
		t.Fatal(err)
	}
	return raw, req.Nonce
}

// forge signs claims with a key of the attacker's own, naming the key id
// the provider uses.
func forge(t *testing.T, claims map[string]any) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "id"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func wantRefusal(t *testing.T, err, reason error) {
	t.Helper()
	if !errors.Is(err, ErrIDToken) || !errors.Is(err, reason) {
		t.Errorf("err = %v, want ErrIDToken and %v", err, reason)
	}
}

// TestConfigWantsHTTPS refuses a plain-http issuer off loopback before any
// request, and a missing client id.
func TestConfigWantsHTTPS(t *testing.T) {
	for _, c := range []Config{
		{Issuer: "http://id.example.com", ClientID: "x"},
		{Issuer: "https://id.example.com"},
		{Issuer: "id.example.com", ClientID: "x"},
	} {
		if _, err := New(context.Background(), c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) err = %v, want ErrConfig", c, err)
		}
	}
	if err := checkConfig(&Config{Issuer: "http://127.0.0.1:5556/dex", ClientID: "x"}); err != nil {
		t.Errorf("loopback http issuer refused: %v", err)
	}
}

// TestClaimsMapping reads the claims other providers send: a configured
// groups claim as a list or a single string, Google's hd, and
// email_verified as a string (as some providers send it).
func TestClaimsMapping(t *testing.T) {
	p := &Provider{cfg: Config{GroupsClaim: "roles"}}
	for _, c := range []struct {
		claims string
		want   identity.Person
	}{
		{`{"email":"ann@corp.example","email_verified":true,"name":"Ann","hd":"corp.example","roles":["eng","ops"]}`,
			identity.Person{Email: "ann@corp.example", EmailVerified: true, Name: "Ann", HostedDomain: "corp.example", Groups: []string{"eng", "ops"}}},
		{`{"email":"bob@x.example","email_verified":"true","roles":"eng","groups":["ignored"]}`,
			identity.Person{Email: "bob@x.example", EmailVerified: true, Groups: []string{"eng"}}},
		{`{"email":"eve@x.example","email_verified":"false"}`, identity.Person{Email: "eve@x.example"}},
	} {
		var got identity.Person
		if err := p.applyClaims(&got, func(v any) error { return json.Unmarshal([]byte(c.claims), v) }); err != nil {
			t.Fatal(err)
		}
		if g, w := jsonOf(got), jsonOf(c.want); g != w {
			t.Errorf("%s: person = %s, want %s", c.claims, g, w)
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
