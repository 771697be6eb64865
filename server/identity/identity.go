// Package identity says who made a request and what a person may do: the
// Person an upstream OpenID provider signed in, carried in a request's
// context from the authorization check to the MCP handlers, the web page,
// the access policy and the audit log.
//
// A zero Person is nobody in particular: the library owner (signed in with
// the owner passphrase or the static token), who holds every right. Only a
// non-zero Person is checked against a Policy.
//
// Everything here is a plain value or a pure function and is safe for
// concurrent use; Policy implementations must be too.
package identity

import (
	"context"
	"strings"
)

// Person is someone an upstream OpenID provider signed in. Issuer and
// Subject name them for good; the other claims are what the provider said
// at sign-in.
type Person struct {
	Issuer        string   `json:"iss"`
	Subject       string   `json:"sub"`
	Email         string   `json:"email,omitempty"`
	EmailVerified bool     `json:"email_verified,omitempty"`
	Name          string   `json:"name,omitempty"`
	Groups        []string `json:"groups,omitempty"`
	// HostedDomain is Google Workspace's "hd" claim: the domain of the
	// account's organisation, empty for a personal account.
	HostedDomain string `json:"hd,omitempty"`
}

// IsZero reports whether p is nobody in particular (the owner).
func (p Person) IsZero() bool { return p.Issuer == "" && p.Subject == "" }

// Key is p's stable identifier, the issuer and subject.
func (p Person) Key() string {
	if p.IsZero() {
		return ""
	}
	return p.Issuer + "#" + p.Subject
}

// Label is how logs and pages show p: the e-mail address when the provider
// verified it, else the subject; "owner" for the zero Person.
func (p Person) Label() string {
	switch {
	case p.IsZero():
		return "owner"
	case p.Email != "" && p.EmailVerified:
		return strings.ToLower(p.Email)
	}
	return p.Subject
}

// Right is one thing a person may do in a library.
type Right string

const (
	// Read is search and fetch, over MCP, the CLI or the web page.
	Read Right = "read"
	// Write is adding and removing documents (web uploads, removals).
	Write Right = "write"
)

// Policy decides what a person may do in a library, named as `serve`
// names it (a --library NAME, or the single library's name). A Policy
// answers from its current rules: an edit takes effect on the next call,
// not at token expiry. Implementations must be safe for concurrent use.
type Policy interface {
	Allows(p Person, library string, r Right) bool
}

type personKey struct{}

// NewContext returns ctx carrying p.
func NewContext(ctx context.Context, p Person) context.Context {
	return context.WithValue(ctx, personKey{}, p)
}

// FromContext returns the Person ctx carries and whether it carries one.
func FromContext(ctx context.Context) (Person, bool) {
	p, ok := ctx.Value(personKey{}).(Person)
	return p, ok
}
