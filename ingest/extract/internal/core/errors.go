package core

import "errors"

// The sentinel errors of every reader, wrapped by the errors they return.
// Package extract re-exports them and documents when each is returned; the
// readers use them so that callers of Extract branch with errors.Is alone.
var (
	ErrEncrypted   = errors.New("password required")
	ErrNoText      = errors.New("no extractable text")
	ErrMalformed   = errors.New("malformed document")
	ErrTooLarge    = errors.New("file too large")
	ErrUnsupported = errors.New("unsupported file type")
	ErrTimeout     = errors.New("extraction timed out")
	ErrGarbage     = errors.New("extracted text is mostly garbage characters")
	ErrExpansion   = errors.New("expansion bomb")
)
