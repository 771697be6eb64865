// Package weaviate keeps an mcpvec library in a Weaviate cluster instead of
// one bbolt file, so several `serve` processes on several hosts can share
// it and survive a node failing. Backend implements the library's seam
// (library.Backend), so search, fetch, ingest and rm work the same on a
// Weaviate collection as on the embedded store; Collection underneath
// speaks Weaviate's REST and GraphQL API with net/http (the official Go
// client would add some thirty modules, among them the Weaviate server
// itself, gRPC and the Mongo driver, for a dozen endpoints).
//
// A library is selected by a URL, weaviate://host:port/Collection (http) or
// weaviates://host:port/Collection (https), and lives in three classes:
//
//	<Collection>Passage   one object per passage: text (BM25-indexed, k1 2.0
//	                      and b 0.75 like the embedded index), terms (the
//	                      text as Options.Analyzer's terms, BM25-indexed
//	                      instead when set), docId, index, seq, start, end,
//	                      pageStart, pageEnd, title, and the passage's
//	                      vector (brought by mcpvec, cosine)
//	<Collection>Document  one object per document: metadata, page starts,
//	                      passage seqs, full text (stored, not indexed), and
//	                      the original file as a blob (base64 on the wire)
//	<Collection>Meta      named settings: mcpvec schema version, embedder
//	                      identity, analyzer name, creation time,
//	                      link-signing keys
//
// Object ids are UUID v5 of the document or passage id, so every process
// maps an id to the same object and a re-put overwrites in place. A
// passage's seq is 63 bits of its object id, kept as decimal text because
// GraphQL's Int has 32 bits.
//
// Collection's CopyFrom and CopyTo move a library between an embedded store.DB and a
// collection without extracting or embedding again (`mcpvec migrate`);
// CopyInto copies a collection into a new one, embedding the passages again
// (`mcpvec reindex --into`: a collection's vectors cannot change
// dimensions in place). A copy interrupted part way resumes by skipping
// documents already copied.
//
// # Caveats
//
//   - A Backend and a Collection are safe for concurrent use, and several
//     processes may share a collection. There are no transactions:
//     PutDocument upserts passages, deletes the old version's surplus, then
//     writes the document object (PutDocuments, which copies use, does each
//     step for a group of documents at once); DeleteDocument deletes
//     passages, then the document. An interrupted
//     write is repaired by repeating it. A search racing a put may see the
//     new passages under the old document record.
//   - A search through the library seam asks Weaviate for the ranking only
//     (Rank: ids and scores), then reads the passages shown and their
//     documents in one query (ChunksAndDocuments).
//   - Every method that reaches Weaviate takes the caller's context; a
//     Backend bounds each call by Options.Timeout within it.
//   - Hybrid searches are fused by Weaviate in one query: the library's
//     reciprocal rank fusion maps to rankedFusion and its score fusion to
//     relativeScoreFusion, with alpha = w/(1+w) for vector weight w.
//   - Backend.Counts is cached for a few seconds (the query path asks on
//     every search whether there are vectors); it never fails, and logs a
//     count it could not read.
//   - Passages a search brought back, and the records of their documents
//     (read in one query when the library loads the passages), answer the
//     library's follow-up Chunks and Document calls for Options.RecentTTL
//     (2 s); a write through the Backend empties them. Another process's
//     re-ingest can therefore show up to 2 s late in snippets and titles.
//   - Backend.Apply and Backend.Save do nothing: every write goes through
//     Put and Delete and Weaviate keeps its own indexes.
//   - Every read and write carries Options.Consistency (QUORUM by default) on
//     replicated collections; with QUORUM reads and writes a read sees every
//     acknowledged write, and one node in three may be down. Replicated
//     classes use the TimeBasedResolution deletion strategy so a node that
//     missed a delete does not bring the object back when it rejoins.
//   - A write in flight when a replica dies can wait for the dead node until
//     the HTTP client's timeout (seen: 8 s and more on a loaded machine); it
//     is then not acknowledged, and repeating it succeeds with the node down.
//   - Weaviate's BM25 ranks as the embedded index does only when asked for
//     enough passages (100 agree on Cranfield; at a limit of 10 its
//     block-max WAND leaves some out) and not right after a bulk write: for
//     a minute or two its scores lag the writes (shorter with
//     PERSISTENCE_MEMTABLES_FLUSH_IDLE_AFTER_SECONDS set low on the nodes).
//     With several shards each ranks with its own statistics.
//   - Collection settings (shards, replication factor, asynchronous
//     replication) apply only when Open creates the classes.
//   - Originals are stored in the document object; Weaviate holds objects in
//     memory while it writes them, so very large files cost memory on every
//     replica. Keep originals out (nil) and serve files from their source
//     URL if that matters.
//   - Errors: ErrURL, ErrUnreachable, ErrAuth, ErrVersion and ErrSchema from
//     Open and any call; store.ErrNotFound, store.ErrEmbedderMismatch and
//     store.ErrDimensions as in the embedded library; *StatusError for any
//     other refusal by the server.
package weaviate
