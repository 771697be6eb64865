package web

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
