package oauth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// MinPassphraseLen is the shortest owner passphrase accepted, in characters.
const MinPassphraseLen = 12

var (
	// ErrWeakPassphrase is returned by HashPassphrase for a passphrase
	// shorter than MinPassphraseLen.
	ErrWeakPassphrase = errors.New("passphrase too short")
	// ErrBadHash is returned by SetPassphrase for bytes HashPassphrase did
	// not make.
	ErrBadHash = errors.New("not a passphrase hash")
)

// passphraseHash is an Argon2id hash with its parameters, so they can be
// raised later without breaking stored hashes.
type passphraseHash struct {
	Salt    []byte `json:"salt"`
	Hash    []byte `json:"hash"`
	Time    uint32 `json:"time"`
	Memory  uint32 `json:"memory_kib"`
	Threads uint8  `json:"threads"`
}

// argonParams are the parameters for new hashes: RFC 9106's second
// recommended setting (64 MiB, 3 passes).
var argonParams = passphraseHash{Time: 3, Memory: 64 << 10, Threads: 4}

const (
	passKey = "passphrase"
	hashLen = 32
)

// HashPassphrase returns the stored form of a passphrase: an Argon2id hash
// with a random salt, as JSON. It returns ErrWeakPassphrase for a short one.
// Safe for concurrent use; it is slow (tens of milliseconds) by design.
func HashPassphrase(pass string) ([]byte, error) {
	if utf8.RuneCountInString(pass) < MinPassphraseLen {
		return nil, fmt.Errorf("%w: use at least %d characters", ErrWeakPassphrase, MinPassphraseLen)
	}
	h := argonParams
	h.Salt = make([]byte, 16)
	if _, err := rand.Read(h.Salt); err != nil {
		return nil, fmt.Errorf("random: %w", err)
	}
	h.Hash = argon2.IDKey([]byte(pass), h.Salt, h.Time, h.Memory, h.Threads, hashLen)
	return json.Marshal(h)
}

// validHash reports whether b is a stored passphrase hash.
func validHash(b []byte) bool {
	var h passphraseHash
	return json.Unmarshal(b, &h) == nil && len(h.Hash) == hashLen && len(h.Salt) >= 16 &&
		h.Time > 0 && h.Memory > 0 && h.Threads > 0
}

// checkPassphrase reports whether pass matches the stored hash.
func checkPassphrase(stored passphraseHash, pass string) bool {
	if len(stored.Hash) != hashLen || stored.Time == 0 || stored.Memory == 0 || stored.Threads == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pass), stored.Salt, stored.Time, stored.Memory, stored.Threads, hashLen)
	return subtle.ConstantTimeCompare(got, stored.Hash) == 1
}
