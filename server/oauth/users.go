package oauth

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

// User is one person who holds grants: what `mcpvec auth users` shows.
// Grants the owner approved are the owner's (the zero Person).
type User struct {
	Person identity.Person `json:"person"`
	// Label and Key are Person.Label() and Person.Key().
	Label string `json:"user"`
	Key   string `json:"key,omitempty"`
	// Resources and Clients are the distinct resource URLs and client
	// names of their grants, in order.
	Resources []string `json:"resources"`
	Clients   []string `json:"clients"`
	Grants    int      `json:"grants"`
	// LastUsed is the latest last use of their grants (zero: never).
	LastUsed time.Time `json:"last_used"`
}

// Users returns everyone who holds a grant, grouped by person (by Key),
// most recently used first, or the Store's error.
func Users(st Store) ([]User, error) {
	l, err := List(st)
	if err != nil {
		return nil, err
	}
	by := make(map[string]*User)
	var order []*User
	for _, g := range l.Grants {
		p := personOf(g)
		u := by[p.Key()]
		if u == nil {
			u = &User{Person: p, Label: p.Label(), Key: p.Key(), Resources: []string{}, Clients: []string{}}
			by[p.Key()] = u
			order = append(order, u)
		}
		u.Grants++
		u.Resources = addOnce(u.Resources, g.Resource)
		u.Clients = addOnce(u.Clients, g.ClientName)
		if g.LastUsed.After(u.LastUsed) {
			u.LastUsed = g.LastUsed
		}
	}
	out := make([]User, len(order))
	for i, u := range order {
		out[i] = *u
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastUsed.After(out[j].LastUsed) })
	return out, nil
}

func addOnce(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// IsUser reports whether who names p: their issuer#subject, their e-mail
// address (any case), or "owner" for the zero Person.
func IsUser(who string, p identity.Person) bool {
	if p.IsZero() {
		return who == "owner"
	}
	return who == p.Key() || (p.Email != "" && strings.EqualFold(who, p.Email))
}

// RevokeUser revokes every grant of one person (see IsUser), with their
// tokens, in one transaction, effective on the next request. It returns
// how many grants it revoked, or an error matching ErrNotFound when the
// person holds none, or the Store's error.
func RevokeUser(st Store, who string) (int, error) {
	n := 0
	err := st.Update(func(tx Tx) error {
		var doomed []string
		err := tx.ForEach(kindGrant, func(key string, b []byte) error {
			var g Grant
			if decodeJSON(b, &g) == nil && IsUser(who, personOf(g)) {
				doomed = append(doomed, key)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(doomed) == 0 {
			return fmt.Errorf("%q holds no grant: %w", who, ErrNotFound)
		}
		for _, id := range doomed {
			if err := revokeGrant(tx, id); err != nil {
				return err
			}
		}
		n = len(doomed)
		return nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return 0, err
	}
	return n, err
}

// personOf is who g was made for: the zero Person for the owner.
func personOf(g Grant) identity.Person {
	if g.Person == nil {
		return identity.Person{}
	}
	return *g.Person
}
