// Package ingest turns files into stored documents: it walks the paths it is
// given (discover), extracts text per page (extract), splits it into
// passages (chunk), embeds them (embed) and writes each document in one
// store transaction.
//
// # Caveats
//
//   - Every file ends in exactly one of: ingested, unchanged (same path and
//     content, skipped), duplicate (same content already ingested from
//     another path), skipped (unsupported type) or failed with a one-line
//     reason (FileError). One file's failure never stops the batch.
//   - A document is written in one transaction, so a killed ingest leaves
//     every file either fully ingested or absent; rerunning continues.
//   - An Ingester is safe for concurrent use, but the store admits one
//     writing process at a time.
//   - An Ingester has one door to storage, the Library interface it
//     declares: look a document up by path or id, and put a document with
//     its passages, vectors and original. cmd passes the live library's
//     write session (library.Writes), which indexes what it is handed and
//     keeps the resumable embed cache; ingest itself names no bucket.
//   - Progress is reported as events (Progress) to Options.Progress; cmd
//     draws them as a terminal line.
//   - Document ids are the first 16 hex digits of the SHA-256 of the file's
//     bytes: stable across restarts and re-ingests of an unchanged file.
package ingest
