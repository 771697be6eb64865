// Package embed turns passages and queries into vectors.
//
// An Embedder is one small interface. This package holds it, the shared
// errors, the identity (identity.go), the traits (traits.go), the registry
// (registry.go), the checks network providers share (CheckVector,
// OpenDimensions) and the built-in offline embedder (hash.go,
// hash_provider.go); the OpenAI-compatible provider lives in embed/openai,
// Ollama's native one in embed/ollama, with their fake servers for tests
// in embed/openai/openaitest and embed/ollama/ollamatest;
// embed/embedtest holds a deterministic bag-of-words embedder for tests of
// the packages that consume vectors.
//
// Open builds an embedder from its Identity (what a library records:
// provider, model, dimensions, base URL) and the user's Options (API key,
// concurrency): cmd/mcpvec, the eval harness and the test kits all build
// them so, and cmd/mcpvec passes one value to both the ingest pipeline and
// the query path. Providers register themselves (Register) when their
// package is linked in, as database/sql drivers do: this package cannot
// import them, since they import it. The offline embedder is always
// registered.
//
// Traits say what an embedder is: local or remote, its preferred batch
// size and parallelism, lexical-grade or semantic. Callers decide by them
// (TraitsOf), never by a provider's name.
//
// The store records the identity as store.EmbedderInfo, a plain record of
// the same fields (store is a leaf); the two convert directly.
//
// Caveats:
//   - Every Embedder is safe for concurrent use.
//   - Open and TraitsOf know only linked-in providers: in a binary that does
//     not import embed/openai, Open refuses "openai" (ErrUnknownProvider)
//     and TraitsOf gives it an unknown network embedder's traits.
//   - Hash's vectors depend on every feature setting: a change to hashing or
//     features must change its model name (see NewHash), so that libraries
//     built with the old vectors are refused rather than mixed.
//   - Hash's query-side word weight (HashConfig.QueryWeight, SetQueryWeight)
//     is caller code; a panic in it comes back as ErrPanic.
//
// Measured quality and speed are in docs/benchmarks/embedders.md.
package embed
