package weaviate

import "errors"

// Errors callers branch on. Operations also return store.ErrNotFound,
// store.ErrEmbedderMismatch and store.ErrDimensions with the same meaning as
// the embedded library.
var (
	// ErrUnreachable is returned when no Weaviate answers at the URL
	// (connection refused, DNS, timeout) or it answers 503 not ready.
	ErrUnreachable = errors.New("weaviate unreachable")
	// ErrVersion is returned when the server is older than MinVersion.
	ErrVersion = errors.New("unsupported weaviate version")
	// ErrSchema is returned when the collection exists with properties,
	// types or a vectorizer mcpvec did not create, or was written by a newer
	// mcpvec.
	ErrSchema = errors.New("weaviate collection schema mismatch")
	// ErrAuth is returned when Weaviate refuses the API key (401 or 403).
	ErrAuth = errors.New("weaviate refused the credentials")
	// ErrURL is returned by Open for a malformed store URL.
	ErrURL = errors.New("invalid weaviate store URL")
)
