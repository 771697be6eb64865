// Package vector is mcpvec's vector index: an HNSW graph (Malkov & Yashunin,
// "Efficient and robust approximate nearest neighbor search using
// Hierarchical Navigable Small World graphs") written for this project, plus
// the exact brute-force scan it is measured against. It speaks uint64 ids and
// []float32 vectors and imports no other mcpvec package but index, for the
// KV it persists into.
//
// # Use
//
//	x := vector.New(1536, vector.DefaultConfig())
//	err := x.Add(id, vec)            // insert, or replace the vector of id
//	hits, err := x.Search(q, 10)     // best first; exact scan while Len() < ExactBelow
//	hits, err = x.SearchSeeded(q, 10, ids) // layer 0's walk also starts from ids
//	x.Delete(id)
//	err = x.Save(kv)                 // inside the store's write transaction
//	x, stats, err := vector.Load(kv, 1536, cfg, vectors) // at start-up
//	x, stats, err = vector.LoadSums(kv, 1536, cfg, sums, read) // with a cfg.Source
//
// # Algorithm
//
// Layered graph with levels drawn as floor(-ln(U)/ln(M)); SEARCH-LAYER with a
// candidate max-heap and an ef-bounded result min-heap; neighbours chosen by
// the paper's heuristic (keep a candidate only if it is closer to the new
// node than to every neighbour already kept), M links on upper layers and 2*M
// on layer 0; separate ef for construction and search. Scores are dot
// products (cosine after normalising once on insert), computed with
// github.com/viterin/vek (AVX2+FMA, with a pure-Go fallback on other CPUs).
//
// SearchSeeded adds entry points: the live vectors of the given ids join
// layer 0's beam next to where the descent from the entry point ends (ids
// the caller expects near the query, e.g. another retriever's best). It
// helps when the query is far from every vector, where a walk from the
// entry point wanders among many at almost the same distance; a seed is
// returned only if the walk ranks it among the k best.
//
// The graph is walked and built on int8 copies of the vectors (one scale
// per vector, max|v|/127; the query is quantised the same way) with an AVX2
// inner product (quant_amd64.s; a Go loop elsewhere); the ef candidates a
// search ends with are re-scored exactly in float32, so only the walk is
// approximate and results carry exact scores.
//
// With Config.Source set the index keeps no float32 copies at all: it
// re-scores through the Source (the store's vectors), without holding its
// locks, and its memory is the int8 codes (a quarter of the float32 bytes)
// plus links. Without one it keeps both, 1.25x the float32 bytes.
//
// Vectors live in one contiguous slab (grown by 1.25x), their int8 codes in
// another; layer-0 links in one flat []uint32 of (2M+1) words per node;
// upper layers (about 1 node in M) in a small slice each.
//
// # Locking
//
// An RWMutex guards the slot arrays. Search, SearchExact, Add and Delete hold
// it for reading, so searches run in parallel with each other and with
// inserts. Inserts coordinate through 4096 striped mutexes (one is held per
// neighbour list being rewritten, never two at once) and publish link words
// with atomic stores that readers load atomically; a search may see a
// neighbour list mid-rewrite, which only makes that step slightly
// approximate. The write lock is taken to grow the arrays (about log1.25(n)
// times), to repair deletions and by Save.
//
// # Deletes
//
// Delete tombstones the node at once: it disappears from results but is
// still traversed. When tombstones exceed a tenth of the live nodes (and at
// every Save) repair runs under the write lock: each live node that links to
// a tombstone gets a new neighbour list picked by the heuristic from its
// other neighbours and the tombstones' neighbours (up to two tombstones
// deep), then the tombstoned slots are freed for reuse. Re-adding an id
// tombstones its old slot and inserts afresh.
//
// # Persistence
//
// Save writes into a caller-provided KV bucket (bbolt in the store), format 2:
//
//	"c"+id (8 bytes big endian)
//	                 codes: crc32c of the vector as given, int8 scale and
//	                 codes, crc32c of the record
//	"h"              header: magic, format version, metric, dim, M,
//	                 efConstruction, top level, entry id, node count, crc32c
//	"n"+id (8 bytes big endian)
//	                 node: level, crc32c of the vector as given, per layer a
//	                 count and the neighbours' ids (u64), crc32c of the record
//
// Only nodes whose links changed since the last Save or Load are written
// (codes only when the node's vector is new), and records of deleted ids are
// deleted. Load takes the vectors (the source of truth) and the KV: it reads
// the graph without re-inserting, inserts vectors that have no node or whose
// checksum changed, unlinks nodes whose vector is gone, and rebuilds
// everything (in parallel) if the graph is missing, corrupt, or written with
// another dim, metric or M. LoadSums (an index with a Source) takes only the
// vectors' checksums and reads the stored codes instead of the vectors; it
// reads in full only the vectors whose codes are missing or stale. A graph
// of format 1 (no codes) is read by both, its vectors quantised once, and
// rewritten as format 2 by the next Save.
//
// A Config.Scan index keeps no graph: Add links nothing, Save writes codes
// and a header flagged "scan" but no "n" records, and Load and LoadSums
// read only the codes. Opened with Scan, a bucket a graph build saved has
// its "n" records deleted by the next Save; opened without Scan, a bucket
// a Scan index saved has no nodes, so every vector is inserted into a new
// graph (as builds before the flag do too).
//
// # Measured
//
// bench_test.go on clustered synthetic data (1000 queries, fixed seeds, 2
// shared cores, CPU time per query from getrusage), defaults M 16,
// EfConstruction 128:
//
//	100k x 1536   ef 24: recall@10 0.946,   408 us/query
//	              ef 32: recall@10 0.968,   487 us
//	              ef 64 (default): 0.994,   745 us   (37x faster than exact)
//	              exact scan:      1.000, 27701 us
//	              coder/hnsw v0.6.1, ef 20 or 200: recall@10 0.073
//	100k x 384    ef 24: 0.950, 150 us; ef 64: 0.994, 336 us; exact 8101 us;
//	              coder/hnsw 0.077
//	10k x 1536    ef 64: 0.999, 560 us; exact 2871 us; coder/hnsw 0.195
//	10k x 384     ef 64: 0.9995, 81 us; exact 319 us; coder/hnsw 0.236
//
// Build at 100k x 1536: 483 inserts per CPU-second single-goroutine, 455 with
// two goroutines (412/s wall on 2 cores). Load of a saved 100k x 1536 graph
// from bbolt: 0.46 s wall, 0.44 CPU-s (BenchmarkLoadOnly).
//
// Exact and graph search cost the same near 3000 vectors (BenchmarkSwitchover),
// hence ExactBelow 3000. vek's dot product is about 10x the unrolled Go loop
// (54 vs 579 ns at 384-d, 334 vs 3208 ns at 1536-d). The int8 kernel takes
// about 20 ns at 384-d (BenchmarkDotInt8). Memory: 1.08-1.26x the raw bytes
// of the int8 codes, plus the float32 slab when there is no Source, plus
// layer-0 links (the slabs grow by 1.25x; Load sizes them exactly).
// BenchmarkScale (docs/benchmarks/vector-index.md) at 100k x 384: 211 MB before int8, 257 MB
// with both slabs, 73 MB with a Source; recall@10 unchanged (0.99).
//
// At a fixed ef recall falls as the graph grows: on 384-d clustered vectors
// (1000 topics) recall@10 at ef 64 is 0.99 at 100k, 0.96 at 300k and 0.84
// at 1M. Search therefore raises ef to a floor growing as Len()^0.78 (101
// at 300k, 256 at 1M: recall@10 0.977 and 0.962; BenchmarkEfSweep, efsize.go).
//
// # Caveats
//
//   - With a Source, a search fails if the Source does; a vector it no
//     longer has keeps its int8 score. The exact scan (SearchExact, and
//     Search below ExactBelow) then scans int8 codes, re-scores the best
//     3·k and every other vector whose int8 score plus its rounding bound
//     reaches the k-th exact score: the float32 scan's results, scores
//     bit for bit (TestSourceExactMatchesFloat).
//   - Save must run in the same transaction as the vector writes it covers;
//     if it returns an error, roll back (the index keeps its dirty marks).
//   - Builds are deterministic for a Seed only when one goroutine adds in a
//     fixed order; Load's parallel rebuild is not deterministic.
//   - Under Dot the heuristic compares raw inner products, which is not a
//     metric; recall is still measured >= 0.9 on clustered data, but vectors
//     of very different norms can make it worse than Cosine.
//   - Deleted nodes keep their memory until the next repair; freed slots are
//     reused but the slab never shrinks.
//   - A repair after mass deletions may leave a few nodes reachable only
//     through upper layers or not at all; recall after deleting half the
//     nodes is tested (>= 0.9). Load after a crash repairs the same way.
//   - Vector checksums hash the in-memory float32 bytes, so a stored graph is
//     tied to the byte order it was written with (a mismatch only forces
//     re-insertion, never wrong results).
//   - ExactBelow, the default ef/M and the size-based ef floor come from
//     benchmarks on clustered synthetic data; re-measure for other data.
//     The floor is measured up to 1M vectors and extrapolated beyond.
package vector
