// Package index declares what mcpvec's two retrievers share: KV, the
// key/value bucket index/vector (HNSW) and index/lexical (BM25) persist
// into, and DeleteMatching, the one way both clear keys from it. It is a
// leaf: each retriever keeps its own load
// report (vector.LoadStats counts graph nodes, lexical.LoadStats term
// records), as they describe different repairs.
package index

import "bytes"

// KV is the key/value bucket an index persists into. The store implements
// it on a bbolt bucket inside a write transaction (Get and ForEach also
// work in a read transaction, for Load). Keys and values handed to ForEach's
// callback or returned by Get are valid only during the call; an index
// copies what it keeps. Keys and values an index passes to Put are freshly
// allocated and never modified afterwards, as bbolt requires (it keeps them
// until the transaction commits). The bucket should hold nothing but the
// index's keys. Implementations need not be safe for concurrent use: an
// index calls them from one goroutine, within one transaction. Errors from
// Put, Delete and ForEach's callback are returned as they are.
type KV interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	Delete(key []byte) error
	ForEach(fn func(key, value []byte) error) error
}

// DeleteMatching deletes every key of kv that match accepts. The keys are
// listed first and deleted after the walk, since a bucket may not change
// under ForEach. Errors are kv's, as they are.
func DeleteMatching(kv KV, match func(key []byte) bool) error {
	var keys [][]byte
	err := kv.ForEach(func(k, _ []byte) error {
		if match(k) {
			keys = append(keys, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := kv.Delete(k); err != nil {
			return err
		}
	}
	return nil
}
