package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpvec/mcpvec/index/lexical"
	"github.com/mcpvec/mcpvec/server/library"
	wvlib "github.com/mcpvec/mcpvec/server/library/weaviate"
	"github.com/mcpvec/mcpvec/store"
	"github.com/mcpvec/mcpvec/store/weaviate"
)

// analyzerName names lexical.Tokenize in a Weaviate collection: passages
// are stored as its terms, so a collection built with other terms is
// refused rather than searched wrongly.
const analyzerName = "mcpvec-lexical-1"

// docStore is what the commands read and write besides the query path: the
// embedded *store.DB, or a Weaviate collection (*wvlib.Backend).
type docStore interface {
	Path() string
	Documents() ([]*store.Document, error)
	DocumentByPath(path string) (*store.Document, error)
	DocumentInfo(id string) (*store.Document, error)
	PutDocument(doc *store.Document, chunks []store.Chunk, vecs [][]float32, original []byte) (store.PutResult, error)
	Meta() (store.Meta, error)
	SetEmbedder(e store.EmbedderInfo) error
	SettingOrCreate(name string, create func() ([]byte, error)) ([]byte, error)
}

// storeURL is the Weaviate library the flags or $MCPVEC_STORE select, or
// "" for the embedded library file.
func (f *libFlags) storeURL(e *env) (string, error) {
	u := f.store
	if u == "" {
		u = e.getenv("MCPVEC_STORE")
	}
	if u == "" || strings.HasPrefix(u, "weaviate://") || strings.HasPrefix(u, "weaviates://") {
		return u, nil
	}
	return "", fmt.Errorf("--store %q: want weaviate://host:port/Collection or weaviates://… (a library file is --db)", u)
}

// openWeaviate opens the Weaviate library at url (API key from
// $MCPVEC_WEAVIATE_API_KEY), creating its collections when missing with
// $MCPVEC_WEAVIATE_SHARDS shards and $MCPVEC_WEAVIATE_REPLICAS replicas
// (asynchronous repair on when more than one). Several processes may share
// it, so nothing is forwarded or locked.
func openWeaviate(ctx context.Context, e *env, url string, needLib bool) (*handle, error) {
	replicas := envInt(e, "MCPVEC_WEAVIATE_REPLICAS", 1)
	st, err := weaviate.Open(ctx, url, &weaviate.Options{
		APIKey: e.getenv("MCPVEC_WEAVIATE_API_KEY"), Analyzer: lexical.Tokenize, AnalyzerName: analyzerName,
		Shards: envInt(e, "MCPVEC_WEAVIATE_SHARDS", 1), Replicas: replicas, AsyncReplication: replicas > 1,
	})
	if err != nil {
		return nil, err
	}
	h := &handle{close: func() { st.Close() }}
	h.wv = wvlib.New(st, url, wvlib.Options{})
	h.docs = h.wv
	if !needLib {
		return h, nil
	}
	if err := h.loadEmbedder(ctx, e); err != nil {
		h.close()
		return nil, err
	}
	h.lib = h.newWeaviateLib()
	return h, nil
}

// newWeaviateLib is the query path over h.wv with the embedder's fusion.
// The offline embedder gets no query-word weights: Weaviate keeps the
// lexical statistics.
func (h *handle) newWeaviateLib() *library.Library {
	opts := libOptions(h.emb)
	opts.UseIDF = nil
	h.wv.SetFusion(opts.Fusion, opts.VectorWeight)
	var qe library.QueryEmbedder
	if h.emb != nil {
		qe = h.emb
	}
	return library.New(h.wv, qe, opts)
}
