// Package store keeps an mcpvec library in one bbolt file: documents with
// their full text and original bytes, passages ("chunks"), one vector per
// passage, a meta record, and named auxiliary buckets in which derived indexes
// (the HNSW graph, the lexical index) persist themselves.
//
// Layout (bucket → key → value):
//
//	meta       "schema"   → decimal schema version
//	           "embedder" → JSON EmbedderInfo
//	           "created"  → RFC 3339 time
//	           "totals"   → JSON Totals: write generation, documents, passages,
//	                        pages (schema 3; updated by every document write)
//	settings   name       → opaque bytes (link keys, secret path, synced folders, ...)
//	docs       doc id     → JSON Document (without Text)
//	texts      doc id     → full extracted text
//	originals  doc id     → the original file bytes (served by /docs links)
//	paths      source path→ doc id
//	chunks     seq (8-byte big endian) → Chunk record (binary, see chunkcodec.go; version 2 holds a heading path)
//	vectors    seq (8-byte big endian) → little-endian float32s
//	vsums      seq (8-byte big endian) → CRC-32C of the vector's bytes (u32 LE),
//	                        so an index can reconcile without reading vectors
//	aux        name       → nested bucket owned by one derived index
//	auth       kind       → nested bucket of sign-in records (AuthView,
//	                        AuthUpdate; created on first write, see auth.go)
//
// Chunk sequence numbers come from the chunks bucket's sequence and are never
// reused, so an id in a derived index can never point at different text.
//
// # Caveats
//
//   - One document is written in one transaction (PutDocument): after a crash
//     it is either fully present (text, chunks, vectors) or absent. Derived
//     indexes are written in later transactions and may lag; their owners
//     reconcile against the chunks and vectors, which are the source of truth.
//   - MoveDocument changes only a document's record and its paths entry (a
//     renamed file keeps its passages and vectors), in one transaction.
//     Document.ModTime and Document.Created are zero in records written
//     before they existed.
//   - bbolt allows one read-write process per file. Open waits at most
//     Options.Timeout (default 1 s) for the lock and then returns a
//     *LockedError naming the PID recorded in the sidecar file "<path>.pid".
//   - A DB is safe for concurrent use by many goroutines; write transactions
//     are serialised by bbolt.
//   - OriginalReader copies an original in pieces of at most 256 KiB, each in
//     its own read transaction, so a slow consumer never holds one open
//     (bbolt's writers wait for open readers when they grow the file's map).
//     A document removed or replaced by one of another size while being read
//     makes the next Read fail with ErrOriginalChanged; a replacement of the
//     same size mid-read is not detected.
//   - Schema 2 added vsums. A schema-1 file is upgraded (vsums filled) in the
//     first writable Open; opened read-only it stays schema 1 and VectorSums
//     computes the checksums from the vectors. An older mcpvec refuses a
//     schema-2 file (ErrSchema) rather than writing vectors without sums.
//   - Schema 3 added the totals record, upgraded the same way (counted from
//     the document records); read-only, a schema-2 file has none (Totals
//     reports ok false). An older mcpvec refuses a schema-3 file rather than
//     writing without updating the totals, whose generation derived indexes
//     trust to know they missed no write.
//   - Pages a read touches stay mapped into the process (bbolt reads through
//     a shared read-only memory map) until ReleaseMapped drops them; they
//     stay in the page cache. ReleaseMapped leaves the values pins keep.
//   - Pin keeps a read transaction open so that its values can be used in
//     place after the call (the BM25 segment, read without a copy). The
//     store evicts every pin before a write (the holder copies what it
//     keeps) and at Close (it lets go), so a pin never holds back a write:
//     bbolt would otherwise wait for it to remap a growing file, and could
//     not reuse the pages freed meanwhile. A transaction that writes
//     nothing (Check's) leaves the pins.
//   - A writable Open writes only to create the buckets or upgrade an older
//     schema; opening a current library begins no write transaction.
//     WriteStats counts the write transactions begun and committed, so
//     that callers and tests can tell a command that changed nothing wrote
//     nothing.
//   - ReadVectors opens one short read transaction per call; Tx.ReadVectors
//     reads inside the caller's (never open a second read transaction on a
//     goroutine that holds one: a writer growing the file deadlocks them).
//   - Slices handed to callbacks (View, Aux buckets, vector iterators) are
//     valid only during the callback, and so are the strings of the passages
//     ViewChunks lends (they are the file's memory, not copies).
package store
