package oidc

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// Errors returned by New and Exchange; callers branch on them with
// errors.Is. Every refusal of an ID token wraps ErrIDToken and, where the
// reason is known, one of the more specific errors after it.
var (
	// ErrConfig means a Config field is missing or malformed.
	ErrConfig = errors.New("invalid oidc config")
	// ErrDiscovery means the provider's discovery document could not be
	// fetched or does not name the configured issuer.
	ErrDiscovery = errors.New("oidc discovery")
	// ErrExchange means the provider refused the code (unknown, used, for
	// another client or redirect URI, or a PKCE verifier that does not
	// match) or could not be reached.
	ErrExchange = errors.New("oidc code exchange refused")
	// ErrIDToken means the provider's answer held no valid ID token.
	ErrIDToken = errors.New("id token refused")
	// ErrSignature means the ID token is not signed by a key the provider
	// publishes (forged, or malformed).
	ErrSignature = errors.New("bad signature")
	// ErrIssuer means the ID token was issued by another provider.
	ErrIssuer = errors.New("wrong issuer")
	// ErrAudience means the ID token was issued to another client.
	ErrAudience = errors.New("wrong audience")
	// ErrExpired means the ID token has expired.
	ErrExpired = errors.New("expired")
	// ErrNonce means the ID token's nonce is not the sign-in's: the code
	// came from another sign-in.
	ErrNonce = errors.New("nonce mismatch")
	// ErrSubject means the userinfo answer is about someone else than the
	// ID token.
	ErrSubject = errors.New("userinfo subject mismatch")
)

// DefaultGroupsClaim is the claim groups are read from by default.
const DefaultGroupsClaim = "groups"

// Config configures a Provider.
type Config struct {
	// Issuer is the provider's issuer URL exactly as its discovery
	// document names it (e.g. "https://accounts.google.com"); https is
	// required except for a loopback host.
	Issuer string
	// ClientID and ClientSecret are the credentials mcpvec was registered
	// with at the provider; ClientSecret may be empty for a public client.
	ClientID, ClientSecret string
	// Scopes are asked for besides "openid"; nil means "email profile".
	Scopes []string
	// GroupsClaim names the claim holding the person's groups; empty means
	// DefaultGroupsClaim.
	GroupsClaim string
	// HTTPClient talks to the provider; nil means one with a 15s timeout.
	HTTPClient *http.Client
	// Now is the clock ID tokens' expiry is checked against; nil means
	// time.Now.
	Now func() time.Time
}

// Provider is one upstream OpenID provider. It is safe for concurrent use.
type Provider struct {
	cfg      Config
	ctx      context.Context // carries the HTTP client for go-oidc
	op       *gooidc.Provider
	verifier *gooidc.IDTokenVerifier
	oauth    oauth2.Config
}

// New checks cfg and fetches the provider's discovery document. Errors wrap
// ErrConfig or ErrDiscovery. ctx bounds the discovery request only.
func New(ctx context.Context, cfg Config) (*Provider, error) {
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	p := &Provider{cfg: cfg, ctx: gooidc.ClientContext(context.Background(), cfg.HTTPClient)}
	// go-oidc keeps the HTTP client, not ctx, for its later key fetches.
	op, err := gooidc.NewProvider(gooidc.ClientContext(ctx, cfg.HTTPClient), cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDiscovery, cfg.Issuer, err)
	}
	p.op = op
	p.verifier = p.op.VerifierContext(p.ctx, &gooidc.Config{ClientID: cfg.ClientID, Now: cfg.Now})
	p.oauth = oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: p.op.Endpoint(),
		Scopes: append([]string{gooidc.ScopeOpenID}, cfg.Scopes...)}
	return p, nil
}

// checkConfig checks c and fills its defaults.
func checkConfig(c *Config) error {
	u, err := url.Parse(c.Issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%w: issuer %q must be a URL like https://host", ErrConfig, c.Issuer)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback.Host(u.Hostname())) {
		return fmt.Errorf("%w: issuer %q must be https (http only for a loopback address)", ErrConfig, c.Issuer)
	}
	if c.ClientID == "" {
		return fmt.Errorf("%w: no client id", ErrConfig)
	}
	if c.Scopes == nil {
		c.Scopes = []string{"email", "profile"}
	}
	if c.GroupsClaim == "" {
		c.GroupsClaim = DefaultGroupsClaim
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Issuer returns the provider's issuer URL.
func (p *Provider) Issuer() string { return p.cfg.Issuer }

// Request is what a caller keeps of one sign-in between AuthURL and
// Exchange: State to find it again and check the answer, Nonce and Verifier
// to bind the ID token and the code to it. All three are secrets.
type Request struct {
	State, Nonce, Verifier string
}

// NewRequest returns a Request with fresh random values. It fails only when
// the system's random source does.
func NewRequest() (Request, error) {
	var r Request
	for _, f := range []*string{&r.State, &r.Nonce, &r.Verifier} {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return Request{}, fmt.Errorf("random: %w", err)
		}
		*f = base64.RawURLEncoding.EncodeToString(b)
	}
	return r, nil
}

// AuthURL returns the provider's authorization URL to send a person to:
// code flow, PKCE S256 with verifier's challenge, nonce and state, coming
// back to redirectURI.
func (p *Provider) AuthURL(state, nonce, verifier, redirectURI string) string {
	c := p.oauth
	c.RedirectURL = redirectURI
	return c.AuthCodeURL(state, gooidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
}

// Exchange redeems code (which the provider sent to redirectURI for the
// sign-in whose nonce and verifier are given), checks the ID token and
// returns the person it names, completed from the userinfo endpoint when
// the ID token lacks the e-mail address. Errors wrap ErrExchange,
// ErrIDToken (and the specific reason) or ErrSubject.
func (p *Provider) Exchange(ctx context.Context, code, verifier, nonce, redirectURI string) (identity.Person, error) {
	tok, raw, err := p.exchange(ctx, code, verifier, redirectURI)
	if err != nil {
		return identity.Person{}, err
	}
	idt, person, err := p.verify(ctx, raw, nonce)
	if err != nil {
		return identity.Person{}, err
	}
	if tok.AccessToken != "" && idt.AccessTokenHash != "" {
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			return identity.Person{}, fmt.Errorf("%w: %w", ErrIDToken, err)
		}
	}
	if person.Email == "" && p.op.UserInfoEndpoint() != "" && tok.AccessToken != "" {
		return p.completeFromUserInfo(ctx, tok, person)
	}
	return person, nil
}

// exchange redeems code at the token endpoint and returns the token and
// its raw ID token.
func (p *Provider) exchange(ctx context.Context, code, verifier, redirectURI string) (*oauth2.Token, string, error) {
	c := p.oauth
	c.RedirectURL = redirectURI
	tok, err := c.Exchange(gooidc.ClientContext(ctx, p.cfg.HTTPClient), code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrExchange, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, "", fmt.Errorf("%w: the token answer holds no id_token", ErrIDToken)
	}
	return tok, raw, nil
}
