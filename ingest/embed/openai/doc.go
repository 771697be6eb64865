// Package openai is the embedder for the OpenAI embeddings API and every
// server speaking it (Ollama, LM Studio, vLLM, LocalAI, llama.cpp server).
//
// New takes a Config (key, base URL, model, limits); it reads no
// environment variables — cmd/mcpvec maps those to options. An Embedder
// implements embed.Embedder and reports its Usage for cost reports.
// Linked in, the package registers provider "openai" with embed.Open,
// which builds an Embedder from a recorded identity (provider.go, with
// the traits: batches of 256 inputs for api.openai.com, 64 elsewhere).
//
// Where things are:
//   - embedder.go: the type, Embed/EmbedQuery, and the per-call worker pool
//     (errgroup with a limit of Config.Concurrency).
//   - request.go: one batch: attempts, partial answers, vector checks.
//   - split.go: texts to request inputs (split over MaxInputTokens, batched
//     by count and token budget) and pieces' vectors back to one per text.
//   - retry.go: the transport wrapper and error classification (the wait
//     between retries is internal/backoff).
//   - config.go: defaults and validation (the query-vector LRU is
//     embed.QueryCache).
//   - openaitest: the fake server every test that needs one uses.
//
// Caveats:
//   - An Embedder is safe for concurrent use. Concurrency bounds requests
//     in flight twice: per call (errgroup) and across all callers together
//     (a semaphore around each HTTP attempt).
//   - Token limits are enforced on Config.CountTokens (default
//     analysis.EstimateTokens), not on the server's tokenizer.
//   - Embed is all or nothing (see Embedder).
//   - Errors wrap ErrMissingAPIKey, ErrConfig, ErrBadResponse,
//     ErrRetriesExhausted, embed.ErrBadVector, embed.ErrPanic, a
//     *goopenai.APIError (github.com/sashabaranov/go-openai) for HTTP errors,
//     or ctx's error. A panic (in CountTokens or the HTTP stack) never
//     crosses the package boundary.
//   - Secrets (key, userinfo or query of the base URL) never reach errors,
//     logs or Identity.
package openai
