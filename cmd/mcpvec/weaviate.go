package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/analysis"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/weaviate"
	"github.com/mcpvec/mcpvec/store"
)

// storeURL is the Weaviate library the flags or $MCPVEC_STORE select, or
// "" for the embedded library file.
func (f *libFlags) storeURL(e *env) (string, error) {
	u := f.store
	if f.fileOnly || len(f.libs) > 0 { // --library names a file
		return "", nil
	}
	if u == "" {
		u = e.getenv("MCPVEC_STORE")
	}
	if u == "" || strings.HasPrefix(u, "weaviate://") || strings.HasPrefix(u, "weaviates://") {
		return u, nil
	}
	return "", fmt.Errorf("--store %q: want weaviate://host:port/Collection or weaviates://… (a library file is --db)", u)
}

// needFile refuses a Weaviate library for a command that works on a
// library file only (backup, restore): the error says what does the job
// for a collection (instead), or is storeURL's.
func (f *libFlags) needFile(e *env, instead string) error {
	u, err := f.storeURL(e)
	if err == nil && u != "" {
		err = errors.New(instead)
	}
	return err
}

// collectionFlags are a new Weaviate collection's settings and the
// consistency level of every read and write. Shards and replicas apply
// only when a command creates the collection; they default to
// $MCPVEC_WEAVIATE_SHARDS and $MCPVEC_WEAVIATE_REPLICAS (else 1).
type collectionFlags struct {
	shards, replicas int
	async            string // "auto": on when replicas > 1
	consistency      string
}

func (f *collectionFlags) register(fs *flag.FlagSet, e *env) {
	fs.IntVar(&f.shards, "shards", envInt(e, "MCPVEC_WEAVIATE_SHARDS", 1), "Weaviate: shards of a new collection's passages ($MCPVEC_WEAVIATE_SHARDS)")
	fs.IntVar(&f.replicas, "replicas", envInt(e, "MCPVEC_WEAVIATE_REPLICAS", 1), "Weaviate: replication factor of a new collection ($MCPVEC_WEAVIATE_REPLICAS)")
	fs.StringVar(&f.async, "async-replication", "auto", "Weaviate: background repair of a new collection's replicas: on, off, or auto (on when --replicas > 1)")
	fs.StringVar(&f.consistency, "consistency", weaviate.Quorum, "Weaviate: consistency level of reads and writes on a replicated collection: ONE, QUORUM or ALL")
}

// options checks the flags and returns them as store options.
func (f *collectionFlags) options() (weaviate.Options, error) {
	var o weaviate.Options
	if f.shards < 1 || f.replicas < 1 {
		return o, fmt.Errorf("--shards and --replicas must be at least 1 (got %d and %d)", f.shards, f.replicas)
	}
	switch f.async {
	case "auto", "":
		o.AsyncReplication = f.replicas > 1
	case "on", "true":
		o.AsyncReplication = true
	case "off", "false":
	default:
		return o, fmt.Errorf("--async-replication %q: want on, off or auto", f.async)
	}
	o.Consistency = strings.ToUpper(f.consistency)
	if o.Consistency == "" {
		o.Consistency = weaviate.Quorum
	}
	if o.Consistency != weaviate.One && o.Consistency != weaviate.Quorum && o.Consistency != weaviate.All {
		return o, fmt.Errorf("--consistency %q: want ONE, QUORUM or ALL", f.consistency)
	}
	o.Shards, o.Replicas = f.shards, f.replicas
	return o, nil
}

// openWeaviate opens the Weaviate library at url (API key from
// $MCPVEC_WEAVIATE_API_KEY), creating its collections when missing with
// cf's settings (nil: the environment's or the defaults).
func openWeaviate(ctx context.Context, e *env, url string, cf *collectionFlags) (libBackend, error) {
	c, err := openWeaviateStore(ctx, e, url, cf)
	if err != nil {
		return nil, err
	}
	return weaviateBackend{weaviate.New(c, nil)}, nil
}

// openWeaviateStore opens the collection at url with the CLI's analyzer.
func openWeaviateStore(ctx context.Context, e *env, url string, cf *collectionFlags) (*weaviate.Collection, error) {
	if cf == nil {
		cf = &collectionFlags{shards: envInt(e, "MCPVEC_WEAVIATE_SHARDS", 1), replicas: envInt(e, "MCPVEC_WEAVIATE_REPLICAS", 1)}
	}
	opts, err := cf.options()
	if err != nil {
		return nil, err
	}
	opts.APIKey, opts.Analyzer, opts.AnalyzerName = e.getenv("MCPVEC_WEAVIATE_API_KEY"), analysis.Tokenize, analysis.AnalyzerName
	opts.Compatible = analysis.CompatibleAnalyzers
	return weaviate.OpenCollection(ctx, url, &opts)
}

// weaviateBackend is a Weaviate collection; several processes may share
// it, so nothing is forwarded or locked.
type weaviateBackend struct{ wv *weaviate.Backend }

func (b weaviateBackend) docs() docStore  { return wvDocs{b.wv} }
func (b weaviateBackend) file() *store.DB { return nil }
func (b weaviateBackend) Close() error    { return b.wv.Close() }

// queryPath is the query path over the collection with the embedder's
// fusion. The offline embedder gets no query-word weights: Weaviate keeps
// the lexical statistics.
func (b weaviateBackend) queryPath(_ context.Context, emb embed.Embedder) (*library.Library, error) {
	opts := libOptions(emb)
	opts.UseIDF = nil
	b.wv.SetFusion(opts.Fusion, opts.VectorWeight)
	return library.New(b.wv, queryEmbedder(emb), opts), nil
}

// documentsOnly is nil: a collection's query path loads nothing in
// process.
func (b weaviateBackend) documentsOnly() *library.Library { return nil }

// wvDocs is the Weaviate backend in the shape of docStore: each call is
// bounded by wvCallTimeout within the command's ctx.
type wvDocs struct{ *weaviate.Backend }

// wvCallTimeout bounds one docStore call on a collection, as
// weaviate.Options.Timeout's default bounds a backend call.
const wvCallTimeout = 60 * time.Second

func (wvDocs) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, wvCallTimeout)
}

func (d wvDocs) Documents(ctx context.Context) ([]*store.Document, error) {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Backend.Documents(ctx)
}

func (d wvDocs) DocumentByPath(ctx context.Context, path string) (*store.Document, error) {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Backend.DocumentByPath(ctx, path)
}

func (d wvDocs) DocumentInfo(ctx context.Context, id string) (*store.Document, error) {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Backend.Document(ctx, id, false)
}

func (d wvDocs) Meta(ctx context.Context) (store.Meta, error) {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Collection().Meta(ctx)
}

func (d wvDocs) SetEmbedder(ctx context.Context, e store.EmbedderInfo) error {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Collection().SetEmbedder(ctx, e)
}

func (d wvDocs) SettingOrCreate(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Collection().SettingOrCreate(ctx, name, create)
}

func (d wvDocs) getSetting(ctx context.Context, name string) ([]byte, error) {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Collection().Setting(ctx, name)
}

func (d wvDocs) putSetting(ctx context.Context, name string, v []byte) error {
	ctx, cancel := d.call(ctx)
	defer cancel()
	return d.Collection().PutSetting(ctx, name, v)
}
