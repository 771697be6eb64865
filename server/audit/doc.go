// Package audit keeps mcpvec's audit trail: who searched, fetched,
// uploaded and removed what, and when, one JSON object a line in an
// append-only file, and reads it back.
//
// A Log writes to DIR/audit.jsonl. When that file would pass
// Options.MaxBytes it is renamed to DIR/audit-<UTC time>.jsonl and a new
// one begun; only the Options.Keep newest of those are kept. Each entry is
// one write(2) of one whole line to a file opened O_APPEND, so a crash
// never leaves half a line from a finished Write, and several libraries of
// one serve may share a Log. The file is fsync'd at most once a second
// (Options.SyncEvery), on rotation and on Close: a killed process loses
// nothing written, a power cut at most the last second.
//
// Caveats: a Log is safe for concurrent use within one process; two
// processes must not write one directory (serve holds each library's
// writer lock, so two serves cannot share a library's default folder).
// Read tolerates a torn last line (a power cut) by skipping lines that do
// not decode.
package audit
