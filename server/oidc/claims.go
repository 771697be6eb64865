package oidc

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/mcpvec/mcpvec/server/identity"
)

// verify checks raw, an ID token the provider's token endpoint returned,
// against the provider's keys, issuer, this client and the sign-in's
// nonce, and returns it with the person it names.
func (p *Provider) verify(ctx context.Context, raw, nonce string) (*gooidc.IDToken, identity.Person, error) {
	idt, err := p.verifier.Verify(gooidc.ClientContext(ctx, p.cfg.HTTPClient), raw)
	if err != nil {
		return nil, identity.Person{}, p.refusal(raw, err)
	}
	if nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(nonce)) != 1 {
		return nil, identity.Person{}, fmt.Errorf("%w: %w", ErrIDToken, ErrNonce)
	}
	var c struct {
		AZP string `json:"azp"`
	}
	if err := idt.Claims(&c); err != nil {
		return nil, identity.Person{}, fmt.Errorf("%w: claims: %w", ErrIDToken, err)
	}
	// With several audiences, the authorized party must be this client
	// (OpenID Connect Core 3.1.3.7).
	if (len(idt.Audience) > 1 || c.AZP != "") && c.AZP != p.cfg.ClientID {
		return nil, identity.Person{}, fmt.Errorf("%w: %w: authorized party %q", ErrIDToken, ErrAudience, c.AZP)
	}
	person := identity.Person{Issuer: idt.Issuer, Subject: idt.Subject}
	if err := p.applyClaims(&person, idt.Claims); err != nil {
		return nil, identity.Person{}, fmt.Errorf("%w: claims: %w", ErrIDToken, err)
	}
	return idt, person, nil
}

// refusal says why go-oidc refused raw: expired, else (from its unverified
// claims, which go-oidc checks after the signature) another issuer or
// audience, else a bad signature.
func (p *Provider) refusal(raw string, err error) error {
	reason := ErrSignature
	var expired *gooidc.TokenExpiredError
	if errors.As(err, &expired) {
		reason = ErrExpired
	} else if iss, aud, ok := unverifiedClaims(raw); ok {
		switch {
		case iss != p.cfg.Issuer:
			reason = ErrIssuer
		case !slices.Contains(aud, p.cfg.ClientID):
			reason = ErrAudience
		}
	}
	return fmt.Errorf("%w: %w: %w", ErrIDToken, reason, err)
}

// unverifiedClaims reads the issuer and audience of a JWT without checking
// it: only to name the reason of a refusal.
func unverifiedClaims(raw string) (iss string, aud []string, ok bool) {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return "", nil, false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", nil, false
	}
	var c struct {
		Iss string          `json:"iss"`
		Aud json.RawMessage `json:"aud"`
	}
	if json.Unmarshal(b, &c) != nil {
		return "", nil, false
	}
	return c.Iss, stringOrList(c.Aud), true
}

// stringOrList reads a JSON string or list of strings.
func stringOrList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil
		}
		return []string{one}
	}
	var list []string
	_ = json.Unmarshal(raw, &list)
	return list
}

// applyClaims fills person's empty fields from the claims decode reads: email,
// email_verified (a bool, or a string as some providers send), name, the
// groups claim and Google's hd.
func (p *Provider) applyClaims(person *identity.Person, decode func(any) error) error {
	var c map[string]json.RawMessage
	if err := decode(&c); err != nil {
		return err
	}
	str := func(name string) string {
		var s string
		_ = json.Unmarshal(c[name], &s)
		return s
	}
	if person.Email == "" {
		person.Email = str("email")
		var b bool
		person.EmailVerified = json.Unmarshal(c["email_verified"], &b) == nil && b || str("email_verified") == "true"
	}
	if person.Name == "" {
		person.Name = str("name")
	}
	if person.HostedDomain == "" {
		person.HostedDomain = str("hd")
	}
	if person.Groups == nil && c[p.cfg.GroupsClaim] != nil {
		person.Groups = stringOrList(c[p.cfg.GroupsClaim])
	}
	return nil
}

// completeFromUserInfo asks the userinfo endpoint, with tok, for the
// claims the ID token left out. Errors wrap ErrExchange or ErrSubject.
func (p *Provider) completeFromUserInfo(ctx context.Context, tok *oauth2.Token, person identity.Person) (identity.Person, error) {
	ui, err := p.op.UserInfo(gooidc.ClientContext(ctx, p.cfg.HTTPClient), oauth2.StaticTokenSource(tok))
	if err != nil {
		return identity.Person{}, fmt.Errorf("%w: userinfo: %w", ErrExchange, err)
	}
	if ui.Subject != person.Subject {
		return identity.Person{}, fmt.Errorf("%w: %q, not %q", ErrSubject, ui.Subject, person.Subject)
	}
	if err := p.applyClaims(&person, ui.Claims); err != nil {
		return identity.Person{}, fmt.Errorf("%w: userinfo claims: %w", ErrExchange, err)
	}
	return person, nil
}
