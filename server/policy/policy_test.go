package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/server/identity"
)

const sample = `# who may do what
papers  read   @example.com     # the whole team
papers  write  Alice@Example.com
*       read   group:staff
notes   write  https://id.example#248289761001
`

var (
	alice   = identity.Person{Issuer: "https://id.example", Subject: "1", Email: "alice@example.com", EmailVerified: true}
	bob     = identity.Person{Issuer: "https://id.example", Subject: "2", Email: "bob@example.com", EmailVerified: true}
	forged  = identity.Person{Issuer: "https://id.example", Subject: "3", Email: "alice@example.com"} // not verified
	sub     = identity.Person{Issuer: "https://id.example", Subject: "4", Email: "eve@evil.example.com", EmailVerified: true}
	staffer = identity.Person{Issuer: "https://id.example", Subject: "5", Groups: []string{"Staff"}}
	keyed   = identity.Person{Issuer: "https://id.example", Subject: "248289761001"}
)

func TestParse(t *testing.T) {
	rs, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(rs), 4; got != want {
		t.Fatalf("%d rules, want %d: %+v", got, want, rs)
	}
	if got, want := rs[1], (Rule{Library: "papers", Right: identity.Write, Who: "alice@example.com", Line: 3}); got != want {
		t.Errorf("rule 2 = %+v, want %+v", got, want)
	}
	if got, want := rs[3].Who, "https://id.example#248289761001"; got != want {
		t.Errorf("a '#' inside a word was taken for a comment: who = %q, want %q", got, want)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, line := range []string{
		"papers read",
		"papers read alice@example.com extra",
		"papers admin alice@example.com",
		"papers read alice",
		"papers read @",
		"papers read @localhost",
		"papers read group:",
		"papers read #sub",
		"papers read *",
	} {
		_, err := Parse([]byte("# ok\n" + line + "\n"))
		if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: err = %v, want ErrSyntax naming line 2", line, err)
		}
	}
}

func TestAllows(t *testing.T) {
	rs, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		p       identity.Person
		library string
		right   identity.Right
		want    bool
	}{
		{"owner", identity.Person{}, "secret", identity.Write, true},
		{"domain reads", bob, "papers", identity.Read, true},
		{"domain does not write", bob, "papers", identity.Write, false},
		{"domain is per library", bob, "notes", identity.Read, false},
		{"e-mail writes", alice, "papers", identity.Write, true},
		{"unverified e-mail matches nothing", forged, "papers", identity.Read, false},
		{"a subdomain is another domain", sub, "papers", identity.Read, false},
		{"group on every library", staffer, "notes", identity.Read, true},
		{"group may not write", staffer, "notes", identity.Write, false},
		{"issuer#subject writes, so reads", keyed, "notes", identity.Read, true},
		{"issuer#subject elsewhere", keyed, "papers", identity.Read, false},
	} {
		if got := rs.Allows(c.p, c.library, c.right); got != c.want {
			t.Errorf("%s: Allows(%s, %s, %s) = %v, want %v", c.name, c.p.Label(), c.library, c.right, got, c.want)
		}
	}
}
