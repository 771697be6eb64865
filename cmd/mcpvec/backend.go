package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// libBackend is an open library's storage as the commands see it: a
// library file (fileBackend) or a Weaviate collection (weaviateBackend, in
// weaviate.go). openBackend is the one place that tells them apart;
// commands call these methods instead of asking which kind they have. What only a library file
// holds (OAuth sign-ins, sync roots, a read-only open, the admin channel)
// commands reach through file, nil for a collection.
type libBackend interface {
	// docs is what the commands read and write besides the query path.
	docs() docStore
	// file is the library file, or nil when the library is not one.
	file() *store.DB
	// queryPath builds the query path over the backend for emb (nil: no
	// embedder yet, lexical only).
	queryPath(ctx context.Context, emb embed.Embedder) (*library.Library, error)
	// documentsOnly is a library that reads documents and passages and
	// loads no index (fetch), or nil when the backend has nothing lighter
	// than its query path.
	documentsOnly() *library.Library
	// reindex re-embeds the library of h with the embedder the flags ask
	// for: a file in place, a collection into a new one.
	reindex(ctx context.Context, e *env, h *handle, r reindexFlags) error
	// Close closes the library.
	Close() error
}

// docStore is what the commands read and write besides the query path:
// the library file (fileDocs) or a collection (wvDocs). Every method but
// Path may cross the network, so it takes ctx first.
type docStore interface {
	Path() string
	Documents(ctx context.Context) ([]*store.Document, error)
	DocumentByPath(ctx context.Context, path string) (*store.Document, error)
	DocumentInfo(ctx context.Context, id string) (*store.Document, error)
	Meta(ctx context.Context) (store.Meta, error)
	SetEmbedder(ctx context.Context, e store.EmbedderInfo) error
	SettingOrCreate(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error)
	// getSetting returns a setting or an error wrapping store.ErrNotFound;
	// putSetting replaces one.
	getSetting(ctx context.Context, name string) ([]byte, error)
	putSetting(ctx context.Context, name string, v []byte) error
}

// fileDocs is the library file as a docStore. bbolt answers from the local
// file and takes no context, so ctx is not consulted; the file's other
// methods (sync roots, settings) stay reachable through the embedded
// *store.DB.
type fileDocs struct{ *store.DB }

func (d fileDocs) Documents(context.Context) ([]*store.Document, error) { return d.DB.Documents() }
func (d fileDocs) DocumentByPath(_ context.Context, path string) (*store.Document, error) {
	return d.DB.DocumentByPath(path)
}
func (d fileDocs) DocumentInfo(_ context.Context, id string) (*store.Document, error) {
	return d.DB.DocumentInfo(id)
}
func (d fileDocs) Meta(context.Context) (store.Meta, error) { return d.DB.Meta() }
func (d fileDocs) SetEmbedder(_ context.Context, e store.EmbedderInfo) error {
	return d.DB.SetEmbedder(e)
}
func (d fileDocs) SettingOrCreate(_ context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	return d.DB.SettingOrCreate(name, create)
}
func (d fileDocs) getSetting(_ context.Context, name string) ([]byte, error) {
	return d.DB.Setting(name)
}
func (d fileDocs) putSetting(_ context.Context, name string, v []byte) error {
	return d.DB.PutSetting(name, v)
}

// reindexFlags are `mcpvec reindex`'s flags.
type reindexFlags struct {
	lf      *libFlags
	ef      *embedFlags
	into    string // a new collection (weaviateBackend.reindex)
	discard bool
}

// openBackend opens the library the flags select: the collection at the
// store URL (--store or $MCPVEC_STORE, see storeURL), else the library
// file (--db, $MCPVEC_DB or the default). write opens a file read-write,
// creating it; otherwise it must exist. A file held by another process
// comes back as errForward or errBusy (see openFile).
func openBackend(ctx context.Context, e *env, lf *libFlags, write bool) (libBackend, error) {
	url, err := lf.storeURL(e)
	if err != nil {
		return nil, err
	}
	if url != "" {
		return openWeaviate(ctx, e, url, lf.coll)
	}
	path, err := lf.path(e)
	if err != nil {
		return nil, err
	}
	db, err := openLibraryFile(ctx, e, path, write, lf.mapRoom)
	if err != nil {
		return nil, err
	}
	return fileBackend{db}, nil
}

// openLibraryFile opens the library file at path for a command: openFile,
// with the errors a command reports for a missing library or one that
// cannot be written.
func openLibraryFile(ctx context.Context, e *env, path string, write bool, mapRoom int64) (*store.DB, error) {
	if !write {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("no library at %s yet: run `mcpvec ingest FILE...` first (or pass --db)", path)
		}
	}
	db, err := openFile(ctx, e, path, write, mapRoom)
	if write && cannotWrite(err) {
		// A read-only mount: a server may hold the library read-only; it
		// says so. Otherwise say why nothing can be written.
		err = fmt.Errorf("%w: the library cannot be written here, so writes are refused (`mcpvec serve` serves it read-only)", err)
		if held := dialHolder(ctx, e, path, write); held != nil {
			return nil, joinHeld(err, held)
		}
	}
	return db, err
}

// queryEmbedder is emb as the library takes it: a nil interface when
// there is no embedder.
func queryEmbedder(emb embed.Embedder) library.QueryEmbedder {
	if emb == nil {
		return nil
	}
	return emb
}

// fileBackend is a library file: bbolt with the HNSW and BM25 indexes
// loaded in process.
type fileBackend struct{ db *store.DB }

func (b fileBackend) docs() docStore  { return fileDocs{b.db} }
func (b fileBackend) file() *store.DB { return b.db }
func (b fileBackend) Close() error    { return b.db.Close() }

func (b fileBackend) queryPath(ctx context.Context, emb embed.Embedder) (*library.Library, error) {
	defer pauseGC(openGCLimit, openGCPause)()
	return embedded.Open(ctx, b.db, queryEmbedder(emb), libOptions(emb))
}

func (b fileBackend) documentsOnly() *library.Library {
	return embedded.OpenDocuments(b.db, libOptions(nil))
}
