package oauth

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"
)

// Errors of the owner's commands.
var (
	// ErrNoRequest means no pending consent has the given approval code.
	ErrNoRequest = errors.New("no sign-in request waits with that code (it may have expired)")
	// ErrNotFound means no client or grant has the given id.
	ErrNotFound = errors.New("no client or grant with that id")
)

// globalFailureFactor times Config.MaxFailures wrong passphrases within
// the window, from all clients together, lock passphrase approval for
// everyone: a ceiling on guessing from many addresses. Approval on the
// machine (`mcpvec auth approve`) is never locked.
const globalFailureFactor = 10

// failure is a wrong passphrase: when, and from which client (network
// address and client id).
type failure struct {
	at     time.Time
	client string
}

// checkOwner checks the passphrase of a consent form, returning "" when it
// is right, else a message for the page and its status. Wrong passphrases
// are logged and counted per client (network address and clientID, the
// OAuth client the form is for; "" for other pages): after MaxFailures
// within FailureWindow from one client, or globalFailureFactor times as
// many from all, no passphrase from it (or from anyone) is checked until
// the window passes. Approval by command still works. Checks run one at a time, so
// Argon2id's memory is spent once.
func (s *Server) checkOwner(r *http.Request, clientID, pass string) (string, int) {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	client := s.cfg.ClientAddr(r) + " " + clientID
	if s.lockedOut(client) {
		s.log.Warn("oauth: passphrase attempt while locked out", "remote", s.remoteHost(r))
		return fmt.Sprintf("Too many wrong passphrases: try again later, or run %s with the code below.", s.cfg.ApproveCommand), http.StatusTooManyRequests
	}
	var h passphraseHash
	found, err := s.load(kindOwner, passKey, &h)
	if err != nil {
		s.log.Error("oauth: read passphrase", "err", err)
		return "The server could not check the passphrase.", http.StatusInternalServerError
	}
	if !found {
		return "No owner passphrase is set (run `mcpvec auth passphrase`); approve with the command below instead.", http.StatusForbidden
	}
	if pass == "" || !checkPassphrase(h, pass) {
		s.recordFailure(client)
		s.log.Warn("oauth: wrong owner passphrase", "remote", s.remoteHost(r))
		return "Wrong passphrase.", http.StatusForbidden
	}
	return "", http.StatusOK
}

// lockedOut forgets failures older than the window and reports whether
// client, or everyone, has used up its wrong passphrases.
func (s *Server) lockedOut(client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	cut := s.now().Add(-s.cfg.FailureWindow)
	kept, mine := s.failures[:0], 0
	for _, f := range s.failures {
		if f.at.After(cut) {
			kept = append(kept, f)
			if f.client == client {
				mine++
			}
		}
	}
	s.failures = kept
	return mine >= s.cfg.MaxFailures || len(kept) >= globalFailureFactor*s.cfg.MaxFailures
}

// recordFailure counts a wrong passphrase from client. The list stays
// short: lockedOut stops the checks once it holds the global ceiling.
func (s *Server) recordFailure(client string) {
	s.mu.Lock()
	s.failures = append(s.failures, failure{at: s.now(), client: client})
	s.mu.Unlock()
}

// SetPassphrase stores the owner passphrase hash made by HashPassphrase,
// replacing any earlier one. It returns ErrBadHash for other bytes, or the
// Store's error.
func SetPassphrase(st Store, hash []byte) error {
	if !validHash(hash) {
		return ErrBadHash
	}
	return st.Update(func(tx Tx) error { return tx.Put(kindOwner, passKey, hash) })
}

// Approve marks the pending sign-in with the approval code shown on its
// consent page as approved by the owner; the browser then continues. It
// returns the client's name, or an error matching ErrNoRequest.
func Approve(st Store, code string, now time.Time) (string, error) {
	code = normalizeApproveCode(code)
	var name string
	err := st.Update(func(tx Tx) error {
		var hit *pending
		err := tx.ForEach(kindPending, func(_ string, b []byte) error {
			var p pending
			if decodeJSON(b, &p) == nil && p.ApproveCode == code && now.Before(p.Expires) {
				hit = &p
			}
			return nil
		})
		if err != nil || hit == nil {
			return errors.Join(err, ErrNoRequest)
		}
		hit.Approved, name = true, hit.ClientName
		return putJSON(tx, kindPending, hit.ID, hit)
	})
	return name, err
}

// Listing is what `mcpvec auth ls` shows.
type Listing struct {
	Clients []Client `json:"clients"`
	Grants  []Grant  `json:"grants"`
	// Passphrase reports whether an owner passphrase is set.
	Passphrase bool `json:"passphrase_set"`
}

// List returns the clients and grants, oldest first, or the Store's error
// (or a decode error for a damaged record).
func List(st Store) (Listing, error) {
	l := Listing{Clients: []Client{}, Grants: []Grant{}}
	err := st.View(func(tx Tx) error {
		l.Passphrase = tx.Get(kindOwner, passKey) != nil
		if err := tx.ForEach(kindClient, func(_ string, b []byte) error {
			var c Client
			if err := decodeJSON(b, &c); err != nil {
				return err
			}
			l.Clients = append(l.Clients, c)
			return nil
		}); err != nil {
			return err
		}
		return tx.ForEach(kindGrant, func(_ string, b []byte) error {
			var g Grant
			if err := decodeJSON(b, &g); err != nil {
				return err
			}
			l.Grants = append(l.Grants, g)
			return nil
		})
	})
	sort.Slice(l.Clients, func(i, j int) bool { return l.Clients[i].Created.Before(l.Clients[j].Created) })
	sort.Slice(l.Grants, func(i, j int) bool { return l.Grants[i].Created.Before(l.Grants[j].Created) })
	return l, err
}

// Revoke revokes a grant by id, or every grant of a client and the client
// itself by client id, effective on the next request. It returns the number
// of grants revoked, or an error matching ErrNotFound.
func Revoke(st Store, id string) (int, error) {
	n := 0
	err := st.Update(func(tx Tx) error {
		client := tx.Get(kindClient, id) != nil
		var doomed []string
		err := tx.ForEach(kindGrant, func(key string, b []byte) error {
			var g Grant
			if decodeJSON(b, &g) == nil && (key == id || g.ClientID == id) {
				doomed = append(doomed, key)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(doomed) == 0 && !client {
			return fmt.Errorf("%q: %w", id, ErrNotFound)
		}
		for _, g := range doomed {
			if err := revokeGrant(tx, g); err != nil {
				return err
			}
		}
		n = len(doomed)
		if client {
			return tx.Delete(kindClient, id)
		}
		return nil
	})
	return n, err
}

// RevokeAll revokes every grant, pending sign-in and code, and forgets every
// client, in one transaction, returning how many grants there were or the
// Store's error. The owner passphrase stays.
func RevokeAll(st Store) (int, error) {
	n := 0
	err := st.Update(func(tx Tx) error {
		for _, kind := range []string{kindGrant, kindToken, kindCode, kindPending, kindClient} {
			if err := deleteWhere(tx, kind, func(_ string, g *struct{}) bool {
				if kind == kindGrant {
					n++
				}
				return true
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// ErrOwner is returned by VerifyOwner for a wrong or unset passphrase, or
// while wrong attempts lock the passphrase out; its text is for the user.
type ErrOwner struct {
	Msg    string
	Status int // http status: 403, 429 or 500
}

func (e *ErrOwner) Error() string { return e.Msg }

// VerifyOwner checks the owner passphrase for another page of the same
// server (such as the web interface's sign-in), sharing the consent page's
// failure count and lockout. It returns nil when pass is right, else an
// *ErrOwner. It is safe for concurrent use; checks run one at a time.
func (s *Server) VerifyOwner(r *http.Request, pass string) error {
	if msg, status := s.checkOwner(r, "", pass); msg != "" {
		return &ErrOwner{Msg: msg, Status: status}
	}
	return nil
}
