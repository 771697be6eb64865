//go:build !linux

package store

// releaseMapped does nothing where the mapping cannot be released.
func releaseMapped(addr, n uintptr) error { return nil }

// readAhead does nothing where madvise is not used.
func readAhead([]byte) {}

// populate does nothing where madvise is not used.
func populate([]byte) {}

// readAheadRange does nothing where madvise is not used.
func readAheadRange(lo, hi uintptr) {}
