// Package embed turns passages and queries into vectors.
//
// An Embedder is one small interface. This package holds it, the shared
// errors and the built-in offline embedder (hash.go); the OpenAI-compatible
// provider lives in embed/openai, and its fake server for tests in
// embed/openai/openaitest; embed/embedtest holds a deterministic
// bag-of-words embedder for tests of the packages that consume vectors.
// cmd/mcpvec builds one value and passes it to both
// the ingest pipeline and the query path.
//
// The identity of an embedder is store.EmbedderInfo: the library records it
// and refuses vectors from a different one, so store (a leaf) owns the type
// and embedders return it.
//
// Caveats:
//   - Every Embedder is safe for concurrent use.
//   - Hash's vectors depend on every feature setting: a change to hashing or
//     features must change its model name (see NewHash), so that libraries
//     built with the old vectors are refused rather than mixed.
//   - Hash's query-side word weight (HashConfig.QueryWeight, SetQueryWeight)
//     is caller code; a panic in it comes back as ErrPanic.
//
// Measured quality and speed are in docs/benchmarks/embedders.md.
package embed
