// Package library is mcpvec's live library: the one query path and every
// write. It answers search and fetch with the exact objects that the MCP
// tools return and `mcpvec search --json` / `fetch --json` print; it stores
// ingested documents (Writes, ingest's door: Put indexes what it is
// handed, never reading it back), removes them (Remove), follows a renamed
// file without re-embedding it (Move) and checks consistency (Check).
// View lays a document's text out unit by unit for the server's text view;
// search and fetch results carry the anchor in it that a citation opens
// (Page for PDFs, whose original opens at a page).
// Live is the Library a running server serves, swapped after a reindex.
//
// # The backend seam
//
// The data lives behind a Backend (backend.go): put/delete a document with
// its passages and vectors, get, list, lexical and vector candidates,
// counts, check, save; every method that may wait takes a context. What
// only some backends can do is an optional, exported interface that New
// looks up once: Overviewer (a quick Check), Summarizer (counts without a
// listing), ChunkLender (passages lent, not copied), PrefixRanker (a
// lexical list whose prefixes are shorter lists), Mover (a rename without
// re-embedding), Folder (compaction before a save), LoadedCounter (counts
// without loading a deferred index), MappedReleaser (mapped file pages)
// and EmbedCacher (an embed cache for write sessions). The Library never
// asserts its backend to a concrete type and keeps nothing beside it.
//
// The backends live in packages of their own, which only cmd and test
// kits name: library/embedded (the bbolt store with in-process HNSW and
// BM25 indexes; embedded.Open returns a Library over it, and its Reindex
// switches a library file to another embedder) and library/weaviate (a
// Weaviate collection, which searches hybrid itself and answers
// Candidates with fused hits).
//
// # Caveats
//
//   - A Library is safe for concurrent use: searches run in parallel with
//     writes, which the backend indexes as it stores them.
//   - A search's passages are not copied out of a ChunkLender (the embedded
//     backend's file): results chooses them and cuts their snippets in the
//     call that lends them (results.go) and copies out only the snippets,
//     doc ids and headings it keeps.
//   - Errors a model can act on are sentinels: ErrEmptyQuery,
//     ErrQueryTooLong, ErrNotFound. Anything else is a broken library.
package library
