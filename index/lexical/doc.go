// Package lexical is mcpvec's keyword index: Okapi BM25 over passages keyed
// by uint64 ids, with a tokenizer (package analysis) that keeps identifiers,
// flags, versions and error codes searchable. It imports no other mcpvec
// package but index, for the KV it persists into, and analysis.
//
// # Tokens
//
// Passages and queries are split into terms by analysis.Tokenize (package
// analysis holds the rules: case folding, Snowball English stopwords and
// stemming, compound spans such as BZ2_bzDecompressInit yielding their
// parts and the whole); its TokenizerVersion is stored with the terms.
// Passages keep their stop words as terms (analysis.TokenizeStored), not
// counted in their length; only a short query is scored by its own, with
// a lower k1 (query_short.go).
// Add reads each passage in its language (analysis.Detect) and gives one
// of another language than English a term of its own ("\x00lang:de"),
// which no query makes: its document frequency says which languages the
// index holds. SearchQuery reads a short query in the language of the
// index its stop words point to, the index's dominant language on a tie,
// and searches a CJK word by its bigrams (passages hold its characters
// too, for one-character queries).
//
// # Scoring
//
// Score(d, q) = Σ_t qtf(t) · idf(t) · tf·(k1+1) / (tf + k1·(1−b+b·|d|/avgdl)),
// idf(t) = ln(1 + (N−df+0.5)/(df+0.5)) (Lucene's, never negative). The
// defaults k1=2.0, b=0.75 were chosen on SciFact and Cranfield (title and
// text indexed; nDCG@10 0.697 and 0.382; 1.2/0.75 gives 0.696 and 0.370).
// Emitting whole compound spans besides their parts is worth +0.009 on
// SciFact (0.688 without) and −0.002 on Cranfield. Reproduce with:
//
//	MCPVEC_EVAL=1 MCPVEC_EVAL_SWEEP=1 go test -run TestEvalBM25 -v ./index/lexical/
//
// They were checked over four collections at once (SciFact, Cranfield,
// the long-PDF check and a 50k-passage real-text known-item set), by the
// average of their main metrics on half of the queries, and kept: lower
// k1 helps the real-text set (+0.011 at 1.2) but costs Cranfield and the
// long-PDF check as much (docs/benchmarks/ranking-defaults.md; `mcpvec-eval
// -sweep`). k1 and b are read at query time only (Load takes them).
//
// For k below 50, Search scores the query's posting lists term at a time,
// rarest terms (largest score bounds) first, and stops before the common
// ones once their summed bounds fall below the k-th best exact score found
// so far (the idea of MaxScore, Turtle & Flood 1995): the passages that
// could still reach the results are then rescored from their own packed
// terms, so lists of words like "show" or "effect" (tens of thousands of
// postings at 100k passages) are never read. From k 50 the k-th score is low,
// few lists can be skipped, and Search scores every posting term at a time.
// A query of one list, at any k, is scored block by block instead, skipping
// the blocks whose bound is below the k-th score held; one of two lists by
// a walk along the first list that looks the second term up, when the best
// blocks' exact scores rule out the second list's own passages (the idea of
// block-max scoring, Ding & Suel 2011); one of three to eight lists led by
// a rare term likewise, when the first list's best blocks rule out every
// passage without its term. Those walks look passages up in the other
// lists' flat copies; a copy of a list in 1/32 of the passages or more
// keeps a rank (a bit per passage and a running count), so a lookup there
// is two loads rather than a search (search_rank.go). All of them return
// exactly the passages and scores of exhaustive scoring
// (TestMaxScoreMatchesExhaustive, TestOneListMatchesExhaustive,
// TestTwoListsMatchExhaustive, TestWalkMatchesExhaustive compare them on
// random corpora).
//
// # Memory
//
// Posting lists are blocks of 128 (slot delta, tf) uvarint pairs with a
// small header per block (last slot, offset, largest tf, shortest passage:
// what skipping and the score bounds need), about 2–3 bytes a posting. Each
// passage keeps its terms packed exactly as its stored record holds them
// (needed to delete it, to compact and to save). See
// docs/benchmarks/lexical.md#memory-100k for heap profiles.
//
// During a long write the index need not hold what its segments hold:
// Adopt points the passages' terms and the lists' data at the segment a
// Save just wrote, read in place (a pin on the file's map), as Load does
// for a library opened with one; what was added since stays in memory.
// A list read in place is never copied to be extended: later postings go
// to its tail, an allocation of its own (the last block moved there when
// it was not full, so no block straddles the two), and every reader takes
// the two parts as one list. The next segment is written from the bytes
// read in place. An ingest's heap then holds the fixed-width rows (~0.1 KB
// a passage), the tails and what came since the last segment
// (docs/benchmarks/ingest-bound.md). Scores are unchanged: the same bytes
// in the same slots.
//
// A list of 1024 postings or more is scored from a flat copy (search_flat.go),
// made the first time a search reads it; postings added later are read
// compressed after it until they reach a quarter of it, and a deletion of
// one of its passages drops it: 6 bytes a live posting, about 2.5 times its
// compressed form. Were every long list read, that would stay under 0.9 GB
// at a million passages; the 300 SciFact claims made 0.28 GB.
//
// # Persistence
//
// Save writes into a caller-provided KV (a bbolt bucket in a write
// transaction). The index is stored as a base segment plus a delta of
// per-passage records, like one level of an LSM tree:
//
//	"\x00lexical-segm"                 → segment manifest: counts, stream
//	                                      lengths, CRC-32C of each stream
//	"\x00lexical-segc" + stream + 4-byte n → 1 MiB chunk n of a stream
//	8-byte big-endian passage id       → record: version, CRC-32C of the text,
//	                                      token count, (term id delta, tf)...
//	                                      or a 1-byte tombstone
//	"\x00lexical-meta"                 → analysis.TokenizerVersion
//	"\x00lexical-dict" + 4-byte first  → dictionary chunk: terms first..first+n-1
//
// The segment holds every live passage (id, length, checksum, packed terms)
// and every posting list exactly as it lies in memory (blocks of 128 with
// their headers, see persist_segment.go), so Load copies two streams into one
// allocation each and decodes only fixed-width rows: no inversion. From a
// KV wrapped by InPlace (a read transaction held open over bbolt's memory
// map of the file) it copies nothing: passages' terms and lists' data stay
// in the KV's values until Detach copies them (the KV's owner calls it
// before the values go) or Unload drops them (see persist_inplace.go). A KV that
// implements ReadAheader is first asked to read the segment's chunks ahead
// (bbolt maps its file without read-ahead: a cold 1M segment took 14-16 s
// a page fault at a time, 3.3-3.4 s with the hint). Records and
// tombstones are the passages added or deleted since the segment was
// written. Save writes only those (a 10-passage Save writes 10 records and
// a dictionary chunk) until they would exceed max(1024, segment passages/16);
// then it writes a new segment of the whole index and deletes every record,
// tombstone and old chunk (found by walking the KV, so keys left by a
// rolled-back Save go too). The sixteenth bounds both sides: Load inserts at
// most a seventeenth of the passages from records (each costs it several
// times a segment row: at a million passages, with a quarter in records
// `serve` took 3.9 s instead of 2.2 s to be ready and held 420 MiB more;
// docs/benchmarks/startup-and-memory.md#deferred-graph), and a library grown by small Saves rewrites its segment
// each time it grows by a sixteenth, about seventeen times its final size
// written in all (BenchmarkGrowth: 2.6 s of Saves instead of 1.6 s over
// 100k passages). An index loaded with more records than that asks to be
// saved (LoadStats.Rewrite), which folds them in. A command that ends a
// long write (ingest, sync) asks for a segment from 1,024 records on
// (Fold): Load copies every list the records touch, so even a fiftieth of
// a million passages in records cost each open 355 MB and over a second.
// (A segment is about twice the
// size of the records it replaces, 90 against 44 MB at 100k synthetic
// passages: the posting lists repeat them, and each term and block has a
// fixed-width row; stored-MB of BenchmarkScale.) Small indexes (≤ 1024 passages) stay
// records only, the format Load also reads from older versions; with more
// records than that and no segment, LoadStats.Rewrite asks the caller to
// Save, which upgrades them.
//
// PrewriteSegment writes a segment's chunks ahead of the Save that would
// write it, a few MiB a transaction the caller commits, so that no one
// transaction holds the whole segment (bbolt keeps every value put until
// the commit, then copies them into page buffers: twice the segment in
// memory); meanwhile the manifest reads as damaged, so a Load tokenises
// rather than mix two segments (persist_steps.go). Passages added or
// deleted between the steps and that Save are saved as records and
// tombstones beside the new segment. SavePlan tells a caller
// whether a Save writes a segment or records only.
//
// Writing a segment can first reorder its passages by recursive graph
// bisection (reorder.go; off by default: it cost more than it saved,
// docs/benchmarks/reorder.md), keeping the new order only when it makes
// the posting lists smaller: passages that share terms get nearby slots.
// Slots are internal, so the segment format is the same in any order (a
// segment loads in any version) and searches return exactly the same
// results, scores and tie order (TestReorderKeepsResults).
//
// Load reads the dictionary chain, the segment and the records (copied,
// term strings untouched), then walks the passages (the source of truth):
// a record overrides the segment's row for its id; a passage with neither,
// or whose record is stale or damaged, is tokenised; a stored passage the
// caller does not list is dropped (the next Save deletes or tombstones it).
// A segment that fails its checksums, is truncated or refers to dictionary
// terms that were lost is ignored as a whole: its passages are tokenised
// and LoadStats.Reason says why. LoadIDs does the same from passage ids
// alone, reading a passage's text only when the KV does not hold it
// usably: for callers that never change the text under an id, start-up
// then reads no text. LoadSynced, for a caller that knows no passage
// changed since the last Save, takes the passages the KV holds as the
// passages and lists the ids only when the segment is unusable. Postings
// of passages loaded from records are appended to the segment's lists in
// one pass at the end, list by list on all CPUs.
//
// # Files
//
// The index in memory: index.go (passages, dictionary, Add and Delete),
// postings.go (the compressed posting lists), invert.go (rebuilding every
// list at once, for Load and compaction).
//
// Query strategies, files search_*: search.go (Search, BM25, the scratch
// space), search_taat.go (exhaustive, term at a time), search_prune.go
// (MaxScore pruning below k 50) with search_theta.go (its score threshold),
// search_rescore.go (exact scores from packed terms) and search_final.go
// (its end once every list is read), search_one.go and search_two.go
// (queries of one and two lists), search_walk.go (queries of three to
// eight lists led by a rare term), search_sat.go
// (saturation tables), search_bound.go (lists' score bounds, kept with
// them), search_flat.go (flat copies of long lists),
// search_tokens.go (SearchTokens).
//
// Persistence, files persist_*: persist.go (Save and Load), persist_record.go
// (per-passage records and dictionary chunks), persist_segment.go (the
// segment), persist_inplace.go (reading it in place), persist_steps.go
// (writing it in steps), persist_plan.go (what a Save will write) and
// reorder.go (the passages' order in a segment).
//
// # Caveats
//
//   - Index is safe for concurrent use: Search, Len and DocFreq share a read
//     lock; Add, Delete, Save take the write lock.
//   - Save does not own the transaction. If the caller's transaction is
//     rolled back after Save returned nil, the index believes the data is
//     stored; the next Load notices (missing records or segment rows, a gap
//     in the dictionary chain) and re-tokenises the affected passages. The
//     same holds when the process dies between the caller's write of its
//     passages and Save. Values passed to Put are freshly allocated and
//     never modified, as bbolt requires.
//   - Load never fails on damaged records or segments; it repairs them and
//     counts them in LoadStats.Corrupt. It only returns errors from the KV
//     itself (and LoadIDs those of its text function).
//   - Terms are never removed from the dictionary, so it grows with every
//     distinct term ever indexed (deleted passages leave their terms behind
//     with df 0). Postings of deleted passages are reclaimed by compaction
//     once they outnumber the live ones.
//   - Scripts written without spaces (Han, Kana, Hangul, Thai...) are
//     indexed as character bigrams and characters, not dictionary words.
//     Stemming covers eight languages (package analysis); others keep
//     English's rules, which leave non-ASCII words unstemmed.
//   - Changing analysis.TokenizerVersion makes the next Load re-tokenise
//     everything.
//   - An index loaded through InPlace must be detached (Detach) or
//     unloaded (Unload) before the KV's values go; until then the memory
//     it reads is the KV's (for bbolt, the file's pages: they count in the
//     resident set as file pages, and a file cut short under the map would
//     fault a search).
//   - After Load (or a compaction) all posting lists share one allocation,
//     and the segment's passages' terms another; a list that grows past its
//     share moves to its own, and the share it left stays allocated until
//     the next compaction.
//   - Deleting (or replacing) a passage drops the flat copies (search_flat.go) of
//     its terms' lists, and a list whose added postings reach a quarter of
//     its copy drops it; the next search to read such a list rebuilds the
//     copy, at about one and a half times the cost of reading it
//     compressed. Appending passages alone costs a search only the
//     compressed reading of what was added since the copy.
//   - Writing a segment compacts the index first when passages were
//     deleted (it holds live passages only): that Save costs the CPU of
//     inverting every passage, once per segment.
package lexical
