// Package weaviate adapts a Weaviate-backed library (store/weaviate) to the
// live library's Backend seam, so search, fetch, ingest and rm work the same
// on a Weaviate collection as on the embedded store.
//
// # Caveats
//
//   - A Backend is safe for concurrent use, as is the store/weaviate Backend
//     it wraps; several processes may share one collection.
//   - The seam's methods without a context get one bounded by
//     Options.Timeout.
//   - Hybrid searches are fused by Weaviate in one query: the library's
//     reciprocal rank fusion maps to rankedFusion and its score fusion to
//     relativeScoreFusion, with alpha = w/(1+w) for vector weight w.
//   - Counts is cached for a few seconds (the query path asks on every
//     search whether there are vectors); it never fails, and logs a count
//     it could not read.
//   - Passages a search brought back, and the records of their documents
//     (read in one query when the library loads the passages), answer the
//     library's follow-up Chunks and Document calls for Options.RecentTTL
//     (2 s); a write through this Backend empties them. Another process's
//     re-ingest can therefore show up to 2 s late in snippets and titles.
//   - Apply and Save do nothing: every write goes through Put and Delete and
//     Weaviate keeps its own indexes.
package weaviate
