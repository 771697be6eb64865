package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// signatureFor recomputes a link signature independently of the server.
func signatureFor(key []byte, docID string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("mcpvec/docs\x00" + docID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}
