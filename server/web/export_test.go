package web

import "sync/atomic"

// SetLibraryPageSize sets how many documents the library page lists at
// once, until restore.
func SetLibraryPageSize(n int) (restore func()) {
	old := libraryPageSize
	libraryPageSize = n
	return func() { libraryPageSize = old }
}

// SetMaxSessions sets the cap on stored sessions, until restore.
func SetMaxSessions(n int) (restore func()) {
	old := maxSess
	maxSess = n
	return func() { maxSess = old }
}

// CountListBuilds counts the library page's listings built (not taken
// from its cache) from now until restore.
func CountListBuilds() (count func() int, restore func()) {
	var n atomic.Int64
	listBuilt = func() { n.Add(1) }
	return func() int { return int(n.Load()) }, func() { listBuilt = nil }
}
