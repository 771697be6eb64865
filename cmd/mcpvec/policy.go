package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/audit"
	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/policy"
)

// teamFlags are serve's flags for a team: the allow-list and the audit
// trail, and what they opened (one allow-list and one audit log per
// folder, shared by the libraries of a serve of several).
type teamFlags struct {
	allow, auditDir  string
	noAudit, queries bool

	af  *authFlags // serve's sign-in flags
	pol *policy.List
	// admitted remembers when each person was last admitted to each
	// library, so one sign-in (callback, then code redemption) is one
	// audit line.
	admitted sync.Map                 // key "\n" library → time.Time
	logs     map[string]*audit.Log    // by folder
	libs     map[string]libraryAccess // by OAuth resource URL
}

// libraryAccess is what the sign-in check needs of one served library.
type libraryAccess struct {
	name  string
	audit *auditor
}

// registerTeam registers the flags on fs; the allow-list becomes af's
// sign-in check.
func registerTeam(fs *flag.FlagSet, af *authFlags) *teamFlags {
	t := &teamFlags{af: af, logs: map[string]*audit.Log{}, libs: map[string]libraryAccess{}}
	af.admit = t.admit
	fs.StringVar(&t.allow, "allow", "", "allow-list `FILE`: who (e-mail, @domain, group:NAME) may read or write which library, for people signed in through an OpenID provider; an edit applies on their next request")
	fs.StringVar(&t.auditDir, "audit", "", "keep the audit trail in `DIR` (default with --oauth: LIBRARY.audit beside the library file)")
	fs.BoolVar(&t.noAudit, "no-audit", false, "keep no audit trail")
	fs.BoolVar(&t.queries, "audit-queries", false, "record search text in the audit trail (by default: who searched, when, and how many results)")
	return t
}

// libraryName is a served library's name for the allow-list and the
// audit trail: its --library NAME, else its file's name without the
// extension (papers.db: papers).
func libraryName(name, path string) string {
	if name != "" {
		return name
	}
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// apply gives the library st serves, named name, the allow-list and its
// audit trail in o, before its server is built (o.Auth already set).
func (t *teamFlags) apply(e *env, o *server.Options, st *serveState, name string) error {
	o.Library = name
	if t.allow == "" && t.af.issuer != "" {
		return errors.New("--oidc-issuer needs --allow FILE: who may read which library (see `mcpvec serve --help`)")
	}
	if t.allow != "" && t.pol == nil {
		pol, err := policy.Open(absPath(e, expandHome(e, t.allow)), policy.Options{})
		if err != nil {
			return fmt.Errorf("--allow: %w", err)
		}
		t.pol = pol
	}
	if t.pol != nil {
		o.Policy = t.pol
	}
	a, err := t.auditor(e, o, st, name)
	if err != nil {
		return err
	}
	if a != nil {
		st.audit = a
		o.Observe = chainObserve(o.Observe, a.call)
		o.Access = chainObserve(o.Access, a.access)
	}
	base := strings.TrimRight(o.PublicURL, "/") + o.Mount
	if o.SecretPath != "" {
		base += "/" + o.SecretPath
	}
	for _, r := range []string{base + "/mcp", base + "/sse"} {
		t.libs[r] = libraryAccess{name: name, audit: a}
	}
	return nil
}

// auditor opens the audit trail of one library: in --audit DIR, else
// beside the library file when signing in with --oauth; nil when off.
func (t *teamFlags) auditor(e *env, o *server.Options, st *serveState, name string) (*auditor, error) {
	if t.noAudit {
		if t.auditDir != "" || t.queries {
			return nil, errors.New("--no-audit with --audit or --audit-queries: choose one")
		}
		return nil, nil
	}
	dir := t.auditDir
	switch {
	case dir != "":
		dir = absPath(e, expandHome(e, dir))
	case o.Auth == nil && !t.queries:
		return nil, nil // one owner, no sign-ins: nothing to account for
	case st.db == nil:
		return nil, errors.New("the audit trail is kept beside a library file: give --audit DIR (or --no-audit)")
	default:
		dir = st.db.Path() + ".audit"
	}
	l := t.logs[dir]
	if l == nil {
		var err error
		if l, err = audit.Open(dir, audit.Options{}); err != nil {
			return nil, err
		}
		t.logs[dir] = l
	}
	return &auditor{log: l, library: name, queries: t.queries}, nil
}

// close closes the audit logs.
func (t *teamFlags) close() {
	for _, l := range t.logs {
		l.Close()
	}
}

// ErrNotAllowed is the sign-in check's refusal: the person may not read
// the library the connector asked for.
var ErrNotAllowed = errors.New("not on the library's allow-list")

// admit is the OAuth server's sign-in check: a person may sign in for a
// resource when the allow-list lets them read its library; the decision
// goes to that library's audit trail. The owner is always admitted.
func (t *teamFlags) admit(p identity.Person, resource string) error {
	if p.IsZero() {
		return nil
	}
	lib, ok := t.libs[resource]
	if !ok {
		return fmt.Errorf("%w: %q is no library of this server", ErrNotAllowed, resource)
	}
	if t.pol == nil || !t.pol.Allows(p, lib.name, identity.Read) {
		lib.audit.write(p, audit.Entry{Action: audit.Refuse, Target: "sign-in", Outcome: "forbidden"})
		return fmt.Errorf("%w: %s may not read library %s", ErrNotAllowed, p.Label(), lib.name)
	}
	now := time.Now()
	if last, ok := t.admitted.Swap(p.Key()+"\n"+lib.name, now); !ok || now.Sub(last.(time.Time)) > time.Minute {
		lib.audit.write(p, audit.Entry{Action: audit.SignIn, Outcome: "ok"})
	}
	return nil
}
