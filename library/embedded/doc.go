// Package embedded is mcpvec's embedded library backend: a bbolt library
// file (package store) holds the documents, passages and vectors, and the
// HNSW (index/vector) and BM25 (index/lexical) indexes live in the process,
// persisted in the same file. Backend implements library.Backend and every
// optional capability of package library; Open returns a library.Library
// over it, OpenDocuments one that reads documents without loading an
// index. Reindex switches a library file to another embedder (staging the
// new vectors in the embed cache), DropIndexes lets the next open rebuild
// the indexes (`mcpvec check --repair`), and EmbedCache keeps the vectors
// of passages an ingest has not stored yet.
//
// # Buckets
//
// Besides store, this is the only package that names a bucket: the derived
// indexes persist in the store's aux buckets AuxVectors ("hnsw") and
// AuxLexical ("lexical"); AuxEmbedCache ("embed-cache") holds vectors
// embedded but not stored yet (an ingest's unfinished documents, a reindex's
// staged vectors), keyed by sha256(provider, model, dimensions, text). The
// pending reindex target is the store setting "reindex-target".
//
// # Caveats
//
//   - A Backend is safe for concurrent use: searches run in parallel with
//     writes, which update the in-memory indexes after each store write.
//     Searches of the indexes take turns, as many at
//     once as Options.Concurrency (default GOMAXPROCS), the others waiting
//     first come first served (turns.go): more at once would only share the
//     CPUs, each slower and the slowest far slower, each holding its scratch.
//     A search that ranks a second time (repeated passages used up its short
//     list) takes a turn of a second gate of the same size rather than queue
//     behind first rankings again: at most twice as many run at once.
//   - The store's passages and vectors are the source of truth. Open loads
//     the persisted indexes and reconciles them with the store (inserting what
//     is missing, dropping what was deleted); Save persists only what changed.
//     A crash between a document write and Save therefore loses nothing.
//   - The lexical index is reconciled by passage sequence number alone (the
//     store never changes a passage's text under its number): Open reads the
//     text only of passages the index lacks, and a damaged persisted index
//     is logged and rebuilt from the passages.
//   - Save records, in its transaction, the store write generation
//     (store.Totals) up to which every write has been applied to the
//     indexes (aux bucket AuxIndexed). Open compares it with the store's:
//     equal, the BM25 index is loaded as saved, without walking the
//     passages' keys (which maps most of the file); different (a write
//     not yet applied when Save ran, a crash, an older writer), Open
//     reconciles as above and saves. A write committed but not yet applied
//     is never recorded as indexed.
//   - When the default mode does not use vectors (Options.Mode Lexical,
//     the offline embedder's libraries) and the store is in step with the
//     saved indexes, Open loads the BM25 index only: the HNSW graph, which
//     takes as long again at a million passages, is loaded by the first
//     vector or hybrid search (which waits for it), Counts, Check, a write
//     (which does not wait: it is queued and replayed on the loaded graph
//     if the graph's read transaction did not see it, by store generation).
//     A Save waits for a load under way, so the graph it
//     persists holds the queued writes. A lexical search never loads the
//     graph, from the CLI or a server: the MCP tools search in the default
//     mode, so a server of such a library loads it only when a web search
//     in another mode, a write or a count needs it.
//   - The BM25 index reads its segment in place, in the file's pages, from
//     a read transaction Open keeps (store.DB.Pin): no copy at open. A
//     write that fits in the room left in the file's memory map (a
//     sign-in's token, a removal, a small ingest, and the Save of their
//     records and tombstones: store.DB.UpdateSized, saveSize) keeps it
//     reading there; a larger write, or a Save that writes a new segment,
//     makes it copy them first (lexical.Index.Detach), as a load used to.
//     Close makes it let them go (Unload: searches after Close find
//     nothing).
//   - A Save that writes a new BM25 segment writes its chunks first, in
//     transactions of their own (lexical.Index.PrewriteSegment), and then
//     its manifest with the vector index and the generation: one
//     transaction holding the whole segment held it twice in memory at
//     its commit. Document writes applied between the two (an ingest's)
//     are saved as records beside the new segment.
//   - A Save (or Fold, or the end of a write session) with nothing to save
//     (neither index has unsaved changes, lexical.Index.Unsaved and
//     index.Index.Unsaved, and the generation recorded is the indexes')
//     begins no write transaction: a sync of an unchanged folder, or a
//     rescan of `serve --watch` that finds nothing, commits nothing, syncs
//     nothing to disk and leaves the BM25 index reading in place. So does
//     clearing an empty embed cache.
//   - NewLive releases the file pages the open mapped (store.DB.
//     ReleaseMapped), but for the segment the BM25 index reads in place, so
//     a server's resident set after start-up is its indexes; pages searches
//     touch are mapped again as they are read.
//   - Summary reads the store's totals and the first 20 titles, not every
//     document record.
//   - A search's passages are not copied out of the embedded backend's file:
//     results chooses them and cuts their snippets in the read transaction
//     that lends them (store.DB.ViewChunks, results.go) and copies out only
//     the snippets, doc ids and headings it keeps. A panic there comes back
//     as store.ErrCorrupt, as a fault in the file would.
//   - Reindex switches vectors, embedder identity and a rebuilt vector index
//     in one transaction; a Library already open on the store must be
//     reopened after it (Live.Swap). Staged vectors share the embed cache
//     with ingest: a clean ingest run (Writes.Finish(true)) clears it, which
//     costs a pending reindex a re-embedding, never correctness.
//   - Errors come from the store (store.ErrNotFound, store.ErrCorrupt,
//     store.ErrReadOnly, …) and from loading the indexes.
package embedded
