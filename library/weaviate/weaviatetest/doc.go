// Package weaviatetest starts real weaviate-server processes on loopback for
// tests: one node, or a cluster of several that elect a Raft leader among
// themselves.
//
// # Caveats
//
//   - Start skips the test when weaviate-server is not installed (see
//     Binary), unless MCPVEC_WEAVIATE_TESTS=required, which turns the skip
//     into a failure (CI sets it).
//   - Ports are picked free on 127.0.0.1 just before the processes start; a
//     process grabbing one in between makes the start fail, not hang: every
//     wait is bounded.
//   - Nodes are killed (SIGKILL) on cleanup and, on Linux, when the test
//     process dies; their data lives in t.TempDir().
//   - A Cluster is not safe for concurrent use: call Kill and Restart from
//     the test goroutine.
package weaviatetest
