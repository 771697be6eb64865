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
//   - EmbedCache (used by cmd for network embedders) saves finished
//     embedding batches in the store's "embed-cache" bucket, so a killed
//     ingest or reindex pays for no passage twice; a document's entries are
//     dropped once it is stored, the bucket after a clean run.
//   - Document ids are the first 16 hex digits of the SHA-256 of the file's
//     bytes: stable across restarts and re-ingests of an unchanged file.
package ingest
