package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpvec/mcpvec/server/identity"
)

// Record kinds in the Store.
const (
	kindClient  = "client"  // client id → Client
	kindPending = "pending" // consent id → pending
	kindCode    = "code"    // sha256(code) → codeRecord
	kindGrant   = "grant"   // grant id → Grant
	kindToken   = "token"   // sha256(token) → tokenRecord
	kindOwner   = "owner"   // "passphrase" → passphraseHash
)

// Client is a registered client or one known by its metadata document.
type Client struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	RedirectURIs []string `json:"redirect_uris"`
	// ApplicationType is AppWeb or AppNative (see checkApplicationType);
	// "" in records written before it was kept.
	ApplicationType string    `json:"application_type,omitempty"`
	Document        bool      `json:"metadata_document,omitempty"` // ID is a metadata document URL
	Created         time.Time `json:"created"`
}

// Grant is the owner's approval of one client: every token issued from one
// authorization (through all refreshes) belongs to one grant, and revoking
// the grant revokes them all.
type Grant struct {
	ID         string    `json:"id"`
	ClientID   string    `json:"client_id"`
	ClientName string    `json:"client_name"`
	Resource   string    `json:"resource"`
	Scope      string    `json:"scope"`
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"last_used"`
	// Person is who signed in through the upstream provider; nil when the
	// owner approved the grant (passphrase or `mcpvec auth approve`).
	Person *identity.Person `json:"person,omitempty"`
}

// pending is an authorization request waiting for the owner's consent.
type pending struct {
	ID          string    `json:"id"`
	ClientID    string    `json:"client_id"`
	ClientName  string    `json:"client_name"`
	RedirectURI string    `json:"redirect_uri"`
	State       string    `json:"state"`
	Challenge   string    `json:"challenge"`
	Resource    string    `json:"resource"`
	CSRFHash    string    `json:"csrf_hash"`
	ApproveCode string    `json:"approve_code"`
	Approved    bool      `json:"approved"`
	Expires     time.Time `json:"expires"`
	From        string    `json:"from,omitempty"` // Config.ClientAddr of the request
	// Upstream is the sign-in at the upstream provider, until it answers.
	Upstream *upstreamSignIn `json:"upstream,omitempty"`
	// Person is who the upstream provider signed in.
	Person *identity.Person `json:"person,omitempty"`
}

// client names who asked, for counting: network address and client id.
func (p *pending) client() string { return p.From + " " + p.ClientID }

// codeRecord is an issued authorization code; Used marks it spent and
// GrantID then names the grant its tokens belong to.
type codeRecord struct {
	GrantID     string    `json:"grant_id"`
	ClientID    string    `json:"client_id"`
	ClientName  string    `json:"client_name"`
	RedirectURI string    `json:"redirect_uri"`
	Challenge   string    `json:"challenge"`
	Resource    string    `json:"resource"`
	Expires     time.Time `json:"expires"`
	Used        bool      `json:"used"`
	// Person is who consented, signed in upstream; nil for the owner.
	Person *identity.Person `json:"person,omitempty"`
}

const (
	tokenAccess  = "access"
	tokenRefresh = "refresh"
)

// tokenRecord is an issued token, stored under the hash of its value.
// Spent refresh tokens are kept until they expire so reuse is detected.
type tokenRecord struct {
	Kind    string    `json:"kind"`
	GrantID string    `json:"grant_id"`
	Expires time.Time `json:"expires"`
	Spent   bool      `json:"spent,omitempty"`
}

// randomToken returns a prefix and 32 random bytes, URL-safe.
func randomToken(prefix string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// hashToken is the key a secret is stored under: its SHA-256, in hex. The
// secrets are 256 random bits, so no salt or stretching is needed.
func hashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// load decodes the record kind/key into v in a read transaction of its own;
// found is false when there is no such record.
func (s *Server) load(kind, key string, v any) (found bool, err error) {
	err = s.cfg.Store.View(func(tx Tx) (err error) {
		found, err = getJSON(tx, kind, key, v)
		return err
	})
	return found, err
}

func getJSON(tx Tx, kind, key string, v any) (bool, error) {
	b := tx.Get(kind, key)
	if b == nil {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("decode %s record: %w", kind, err)
	}
	return true, nil
}

func decodeJSON(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode record: %w", err)
	}
	return nil
}

func putJSON(tx Tx, kind, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", kind, err)
	}
	return tx.Put(kind, key, b)
}

// deleteWhere deletes every record of kind for which match returns true.
func deleteWhere[T any](tx Tx, kind string, match func(key string, v *T) bool) error {
	var doomed []string
	err := tx.ForEach(kind, func(key string, b []byte) error {
		var v T
		if json.Unmarshal(b, &v) != nil || match(key, &v) {
			doomed = append(doomed, key)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range doomed {
		if err := tx.Delete(kind, k); err != nil {
			return err
		}
	}
	return nil
}

// revokeGrant deletes a grant with its tokens and codes.
func revokeGrant(tx Tx, grantID string) error {
	if err := tx.Delete(kindGrant, grantID); err != nil {
		return err
	}
	if err := deleteWhere(tx, kindToken, func(_ string, t *tokenRecord) bool { return t.GrantID == grantID }); err != nil {
		return err
	}
	return deleteWhere(tx, kindCode, func(_ string, c *codeRecord) bool { return c.GrantID == grantID })
}

// sweep deletes expired consents, codes and tokens, and tokens and codes
// whose grant is gone.
func sweep(tx Tx, now time.Time) error {
	if err := deleteWhere(tx, kindPending, func(_ string, p *pending) bool { return now.After(p.Expires) }); err != nil {
		return err
	}
	if err := deleteWhere(tx, kindCode, func(_ string, c *codeRecord) bool {
		return now.After(c.Expires.Add(time.Hour)) // kept a while so replays are caught
	}); err != nil {
		return err
	}
	return deleteWhere(tx, kindToken, func(_ string, t *tokenRecord) bool {
		return now.After(t.Expires) || tx.Get(kindGrant, t.GrantID) == nil
	})
}

// errNoChange rolls back an update that wrote nothing: the store commits
// even an empty transaction (with bbolt, a meta page and the freelist,
// about 20 KB), and refused requests must not make the server write.
var errNoChange = errors.New("nothing to write")

// writeTx is a Tx that notes whether anything was written through it.
type writeTx struct {
	Tx
	wrote bool
}

func (t *writeTx) Put(kind, key string, value []byte) error {
	t.wrote = true
	return t.Tx.Put(kind, key, value)
}

func (t *writeTx) Delete(kind, key string) error {
	t.wrote = true
	return t.Tx.Delete(kind, key)
}

// update runs fn in a Store.Update that commits only when fn wrote
// something; otherwise the transaction is rolled back and update returns
// nil. It returns fn's error or the Store's.
func (s *Server) update(fn func(Tx) error) error {
	err := s.cfg.Store.Update(func(tx Tx) error {
		w := &writeTx{Tx: tx}
		if err := fn(w); err != nil {
			return err
		}
		if !w.wrote {
			return errNoChange
		}
		return nil
	})
	if errors.Is(err, errNoChange) {
		return nil
	}
	return err
}
