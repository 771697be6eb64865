package store

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned when a document, passage or setting does not exist.
	ErrNotFound = errors.New("not found")
	// ErrLocked is matched (errors.Is) by *LockedError.
	ErrLocked = errors.New("library is in use")
	// ErrSchema is returned when the file was written by a newer mcpvec or is
	// not an mcpvec library.
	ErrSchema = errors.New("unsupported library schema")
	// ErrEmbedderMismatch is returned when vectors from one embedder would be
	// mixed with a library built by another.
	ErrEmbedderMismatch = errors.New("embedder mismatch")
	// ErrDimensions is returned when a vector's length differs from the
	// library's dimensions.
	ErrDimensions = errors.New("vector dimensions differ from the library's")
	// ErrReadOnly is returned by writes on a DB opened read-only.
	ErrReadOnly = errors.New("library opened read-only")
	// ErrCorrupt is returned when the file is damaged: truncated, partly
	// overwritten, or with pages bbolt cannot read. What is still readable
	// can be copied out with Salvage.
	ErrCorrupt = errors.New("library file is damaged")
	// ErrEmpty is returned when a library is opened read-only and the file
	// is empty (0 bytes): nothing was ever written to it.
	ErrEmpty = errors.New("library file is empty")
	// ErrUnwritten comes wrapped together with ErrEmpty when a library is
	// opened read-only and the file was created but its first write never
	// committed (a first ingest killed at the start). Nothing was lost: the
	// next writable open initialises it.
	ErrUnwritten = errors.New("nothing written yet: the first write was interrupted")
)

// LockedError says another process holds the library open for writing.
type LockedError struct {
	Path string
	PID  int // 0 when unknown
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("library %s is in use by PID %d (a running mcpvec serve or ingest)", e.Path, e.PID)
	}
	return fmt.Sprintf("library %s is in use by another process (an mcpvec command reading or writing it)", e.Path)
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }
