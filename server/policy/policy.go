package policy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpvec/mcpvec/server/identity"
)

// ErrSyntax is wrapped by the errors of Parse and Open for a malformed line.
var ErrSyntax = errors.New("allow-list syntax")

// Rule is one line of an allow-list.
type Rule struct {
	Library string         // a library name, or "*"
	Right   identity.Right // identity.Read or identity.Write
	Who     string         // as written, lowercased: e-mail, "@domain", "group:NAME" or "ISSUER#SUBJECT"
	Line    int            // its line in the file, from 1
}

// Rules is a parsed allow-list. Its methods are safe for concurrent use
// (it is never changed once parsed).
type Rules []Rule

// Parse reads an allow-list. A malformed line is an error wrapping
// ErrSyntax that names the line.
func Parse(b []byte) (Rules, error) {
	var rs Rules
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := stripComment(sc.Text())
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		r, err := parseRule(f, n)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read allow-list: %w", err)
	}
	return rs, nil
}

// stripComment cuts line at its comment: a '#' starting the line or
// following a space or tab ('#' inside a word, as in ISSUER#SUBJECT, is
// part of it).
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t') {
			return line[:i]
		}
	}
	return line
}

func parseRule(f []string, n int) (Rule, error) {
	if len(f) != 3 {
		return Rule{}, fmt.Errorf("%w: line %d: want LIBRARY RIGHT WHO, got %d fields", ErrSyntax, n, len(f))
	}
	r := Rule{Library: f[0], Right: identity.Right(strings.ToLower(f[1])), Who: strings.ToLower(f[2]), Line: n}
	if r.Right != identity.Read && r.Right != identity.Write {
		return Rule{}, fmt.Errorf("%w: line %d: right %q: want read or write", ErrSyntax, n, f[1])
	}
	if err := checkWho(f[2]); err != nil {
		return Rule{}, fmt.Errorf("%w: line %d: %v", ErrSyntax, n, err)
	}
	if strings.Contains(r.Who, "#") {
		r.Who = f[2] // issuers and subjects are case-sensitive
	}
	return r, nil
}

// checkWho refuses a WHO that could match nobody, or everybody.
func checkWho(who string) error {
	switch {
	case strings.HasPrefix(who, "group:"):
		if len(who) == len("group:") {
			return errors.New("group: names no group")
		}
	case strings.HasPrefix(who, "@"):
		if len(who) == 1 || strings.Contains(who[1:], "@") || !strings.Contains(who, ".") {
			return fmt.Errorf("%q: want @domain.example", who)
		}
	case strings.Contains(who, "#"):
		iss, sub, _ := strings.Cut(who, "#")
		if iss == "" || sub == "" {
			return fmt.Errorf("%q: want ISSUER#SUBJECT", who)
		}
	case strings.Count(who, "@") != 1 || strings.HasSuffix(who, "@"):
		return fmt.Errorf("%q: want an e-mail address, @domain, group:NAME or ISSUER#SUBJECT", who)
	}
	return nil
}

// Allows reports whether the rules let p do r in library: the zero
// Person always, anyone else when a rule for library (or "*") grants r,
// or write when r is read, to a WHO that matches p.
func (rs Rules) Allows(p identity.Person, library string, r identity.Right) bool {
	if p.IsZero() {
		return true
	}
	for _, rule := range rs {
		if (rule.Library == library || rule.Library == "*") && (rule.Right == r || rule.Right == identity.Write) && matches(rule.Who, p) {
			return true
		}
	}
	return false
}

// matches reports whether who names p.
func matches(who string, p identity.Person) bool {
	email := strings.ToLower(p.Email)
	switch {
	case strings.HasPrefix(who, "group:"):
		for _, g := range p.Groups {
			if strings.EqualFold(g, who[len("group:"):]) {
				return true
			}
		}
		return false
	case strings.Contains(who, "#"):
		return who == p.Key()
	case !p.EmailVerified || email == "":
		return false
	case strings.HasPrefix(who, "@"):
		return strings.HasSuffix(email, who) && strings.Count(email, "@") == 1
	}
	return email == who
}
