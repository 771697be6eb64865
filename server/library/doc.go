// Package library is mcpvec's one query path: it opens the derived indexes
// (HNSW vectors and BM25 lexical) over a store.DB, keeps them in step with
// writes, and answers search and fetch with the exact objects that the MCP
// tools return and `mcpvec search --json` / `fetch --json` print.
//
// # Caveats
//
//   - A Library is safe for concurrent use: searches run in parallel with
//     Apply, which updates the in-memory indexes after a store write.
//   - The store's passages and vectors are the source of truth. Open loads
//     the persisted indexes and reconciles them with the store (inserting what
//     is missing, dropping what was deleted); Save persists only what changed.
//     A crash between a document write and Save therefore loses nothing.
//   - Errors a model can act on are sentinels: ErrEmptyQuery,
//     ErrQueryTooLong, ErrNotFound. Anything else is a broken library.
package library
