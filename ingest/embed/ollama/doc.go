// Package ollama is the embedder for Ollama's native API: the batch
// endpoint POST /api/embed, with the model's presence checked through
// GET /api/tags when an embedder is opened.
//
// New takes a Config (address, model, limits); the package reads no
// environment variables. BaseURL turns an address in the forms Ollama's own
// OLLAMA_HOST takes into the URL to connect to; cmd/mcpvec passes
// $OLLAMA_HOST through it. Linked in, the package registers provider
// "ollama" with embed.Open (provider.go, with the traits: batches of 64,
// two in flight, since the model runs on this machine's shared CPU or GPU).
//
// Where things are:
//   - embedder.go: the type, New (tags check and probe), Embed, EmbedQuery.
//   - wire.go: the request and answer shapes and one HTTP exchange with
//     retries, bounded answers and error hints.
//   - host.go: addresses (BaseURL); config.go: defaults.
//   - ollamatest: a fake Ollama speaking the documented API on loopback.
//
// Caveats:
//   - An Embedder is safe for concurrent use; Concurrency bounds requests
//     in flight across all callers together.
//   - Inputs longer than the model's context are cut by Ollama
//     ("truncate": true): the end of such a text does not count. Passages
//     (512 estimated tokens by default) are far below every embedding
//     model's context.
//   - Ollama has no rerank endpoint (ollama/ollama#3368 is open), so this
//     package offers none.
//   - Errors wrap ErrNotRunning, ErrModelMissing, ErrNotOllama,
//     ErrBadResponse, ErrRetriesExhausted, ErrConfig, embed.ErrBadVector,
//     embed.ErrPanic or ctx's error. A panic never crosses the package
//     boundary.
package ollama
