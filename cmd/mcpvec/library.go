package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/ingest/embed"
	// Linked in, the Ollama and OpenAI providers register with embed.Open.
	"github.com/mcpvec/mcpvec/ingest/embed/ollama"
	"github.com/mcpvec/mcpvec/ingest/embed/openai"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/store"
)

// libFlags are the flags every library command shares.
type libFlags struct {
	db, store string
	coll      *collectionFlags // set by commands that may create a Weaviate collection
	mapRoom   int64            // store.Options.MapRoom of a writable open (maproom.go)
	// fileOnly ignores $MCPVEC_STORE: the command's library is the file
	// (migrate, whose collection is --to or --from).
	fileOnly bool
	// libs are the --library flags (libnames.go).
	libs libraryRefs
}

func (f *libFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", "", "library file (default $MCPVEC_DB or ~/.local/share/mcpvec/library.db)")
	fs.Var(&f.libs, "library", "`NAME[=PATH]`: serve: the library file PATH under /NAME/ (repeat it to serve several); other commands: the library a running serve serves as NAME, or the file PATH")
	fs.StringVar(&f.store, "store", "", "library in a Weaviate collection instead of a file: weaviate://host:port/Collection or weaviates://… ($MCPVEC_STORE; API key $MCPVEC_WEAVIATE_API_KEY)")
}

// registerCollection adds the flags of a new Weaviate collection (shards,
// replicas, asynchronous replication) and its consistency level.
func (f *libFlags) registerCollection(fs *flag.FlagSet, e *env) {
	f.coll = new(collectionFlags)
	f.coll.register(fs, e)
}

func (f *libFlags) path(e *env) (string, error) {
	if len(f.libs) > 0 {
		return f.libraryPath(e)
	}
	p := f.db
	if p == "" {
		p = e.getenv("MCPVEC_DB")
	}
	if p == "" {
		var err error
		if p, err = store.DefaultPath(e.getenv("XDG_DATA_HOME")); err != nil {
			return "", err
		}
	}
	return absPath(e, p), nil
}

func absPath(e *env, p string) string {
	if filepath.IsAbs(p) || e.cwd == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(e.cwd, p)
}

// embedFlags choose the embedder when a library is created or reindexed.
type embedFlags struct {
	provider, model, url string
	dims                 int
}

func (f *embedFlags) register(fs *flag.FlagSet, e *env) {
	fs.StringVar(&f.provider, "embedder", e.getenv("MCPVEC_EMBEDDER"), "embedder for a new library: hash (offline, default), corpus (offline, fitted on the library once it has 2,000 passages), ollama (a local Ollama) or openai (also any OpenAI-compatible server) ($MCPVEC_EMBEDDER)")
	fs.StringVar(&f.model, "embed-model", "", "embedding model (openai default text-embedding-3-small, ollama nomic-embed-text)")
	fs.StringVar(&f.url, "embed-url", "", "embeddings server: an OpenAI-compatible base URL ($OPENAI_BASE_URL), or Ollama's address for --embedder ollama ($OLLAMA_HOST, default 127.0.0.1:11434)")
	fs.IntVar(&f.dims, "dimensions", 0, "vector dimensions (hash: default 384; openai: shorten text-embedding-3 vectors)")
}

func (f *embedFlags) set() bool {
	return f.provider != "" || f.model != "" || f.url != "" || f.dims != 0
}

// identity returns the embedder identity the flags ask for (no provider:
// the offline one); an OpenAI-compatible one defaults to $OPENAI_BASE_URL,
// Ollama to $OLLAMA_HOST (the ollama package reads its forms).
func (f *embedFlags) identity(e *env) embed.Identity {
	p := f.provider
	if p == "" {
		p = embed.HashProvider
	}
	info := embed.Identity{Provider: p, Model: f.model, Dimensions: f.dims, BaseURL: f.url}
	switch {
	case info.BaseURL != "":
	case p == openai.Provider:
		info.BaseURL = e.getenv("OPENAI_BASE_URL")
	case p == ollama.Provider:
		info.BaseURL = e.getenv("OLLAMA_HOST")
	}
	return info
}

// newEmbedder builds the embedder for an identity (embed.Open) with the
// user's options from the environment: $OPENAI_API_KEY,
// $MCPVEC_EMBED_CONCURRENCY; models is where the library keeps fitted
// models (nil: not a file). A network embedder probes its server, so a
// missing key or an unreachable server fails now.
func newEmbedder(ctx context.Context, e *env, id embed.Identity, models embed.ModelStore) (embed.Embedder, error) {
	return embed.Open(ctx, id, embed.Options{
		APIKey: e.getenv("OPENAI_API_KEY"), APIKeyName: "OPENAI_API_KEY",
		Concurrency: envInt(e, "MCPVEC_EMBED_CONCURRENCY", 0), Models: models,
	})
}

func envInt(e *env, name string, def int) int {
	if n, err := strconv.Atoi(e.getenv(name)); err == nil {
		return n
	}
	return def
}

// handle is an open library for one command: its backend (be, from
// openBackend), the library file when it is one (db, else nil), what the
// commands read and write (docs) and the query path (lib).
type handle struct {
	be    libBackend
	db    *store.DB
	docs  docStore
	lib   *library.Library
	emb   embed.Embedder
	close func()
}

// reopenLib loads the query path again, e.g. after the embedder was set.
func (h *handle) reopenLib(ctx context.Context) error {
	lib, err := h.be.queryPath(ctx, h.emb)
	if err != nil {
		return err
	}
	h.lib = lib
	return nil
}

// errForward means the library is held by a running server that accepts
// commands over its admin channel.
var errForward = errors.New("forward to the running server")

// forwardTo is the errForward openLibrary returns, with a connection to
// the server already checked.
type forwardTo struct{ client *admin.Client }

func (*forwardTo) Error() string        { return errForward.Error() }
func (*forwardTo) Is(target error) bool { return target == errForward }

// adminSocket returns where the server for the library at path listens.
func adminSocket(e *env, path string) string {
	return admin.SocketPath(e.getenv("XDG_RUNTIME_DIR"), path)
}

// dialHolder looks for an mcpvec process that holds the library at path
// and answers on its admin channel: a running serve, or a writing command
// (ingest, sync, rm, reindex) that serves reads while it writes (host.go).
// It returns errForward with the checked connection; nil when none
// answers (none runs, or a killed one left its socket); another error when
// the socket is refused (not private, another library), or when a write
// would be handed to a writing command, which refuses writes.
func dialHolder(ctx context.Context, e *env, path string, write bool) error {
	c, err := admin.Dial(ctx, adminSocket(e, path), path)
	if errors.Is(err, admin.ErrNoServer) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("refusing its admin socket: %w", err)
	}
	if holder, pid := c.Holder(); write && isWriter(holder) {
		return &busyError{holder: holder, pid: pid}
	}
	return &forwardTo{client: c}
}

// joinHeld is what dialHolder found (held, not nil) when the library could
// not be opened (err): the server to forward to, a busy writer, or err with
// the reason its socket was refused.
func joinHeld(err, held error) error {
	if errors.Is(held, errForward) || errors.Is(held, errBusy) {
		return held
	}
	return fmt.Errorf("%w; %w", err, held)
}

// errBusy means a write met a writing command (ingest, sync, rm, reindex)
// that holds the library: it serves reads only.
var errBusy = errors.New("the library is being written")

// busyError is errBusy naming the writing command and its PID.
type busyError struct {
	holder string
	pid    int
}

func (b *busyError) Error() string {
	article := "a"
	if strings.ContainsAny(b.holder[:1], "aeiou") {
		article = "an"
	}
	return fmt.Sprintf("%s %s is running (PID %d); try again when it ends", article, b.holder, b.pid)
}

func (*busyError) Is(target error) bool { return target == errBusy }

// lockWait is how long a command waits for the library while another
// process holds it without an admin channel (a short command, or a server
// starting or stopping) before it reports who holds it; lockPoll is how
// often it looks again.
const (
	lockWait = time.Second
	lockPoll = 10 * time.Millisecond
	// lockOnce is a store.Options.Timeout that makes one lock attempt:
	// bbolt stops retrying once less than its 50 ms retry step is left.
	lockOnce = time.Nanosecond
)

// openFile opens the library file at path or finds the process that holds
// it. It tries the lock without waiting; when another process holds it, it
// asks the admin socket, so a command for a running server (or for the
// reads a writing command serves) is handed over at once instead of after
// a lock wait, and a socket that is refused (not private, another
// library) is reported at once. When nobody answers, both are tried again
// every lockPoll for up to lockWait, so a holder that starts its admin
// channel or releases the lock meanwhile is found; after that the lock
// error names the holder's PID. mapRoom is store.Options.MapRoom of a
// writable open.
func openFile(ctx context.Context, e *env, path string, write bool, mapRoom int64) (*store.DB, error) {
	deadline := time.Now().Add(lockWait)
	for {
		db, err := store.Open(path, &store.Options{ReadOnly: !write, Timeout: lockOnce, MapRoom: mapRoom})
		if !errors.Is(err, store.ErrLocked) {
			return db, err
		}
		if held := dialHolder(ctx, e, path, write); held != nil {
			return nil, joinHeld(err, held)
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// need is what a command needs of the library besides its store.
type need int

const (
	needStore  need = iota // the store alone: h.lib is nil
	needDocs               // documents and passages: h.lib loads no index (fetch)
	needSearch             // the query path and writes: h.lib is the whole library
)

// openLibrary opens the library for a command (openBackend picks the file
// or the Weaviate collection). write opens it read-write (creating it);
// otherwise it must exist. need says what else to load: the
// query path (needSearch), a library that reads documents only (needDocs), or
// nothing (needStore). Inside a server (forwarded commands) the server's library is
// used. When another process holds the library and runs a server, it returns
// errForward.
func openLibrary(ctx context.Context, e *env, lf *libFlags, write bool, need need) (*handle, error) {
	if st := e.forwarded; st != nil {
		if write && st.readOnly {
			return nil, fmt.Errorf("%s: %w: the running `mcpvec serve` holds it read-only, so writes are refused", st.db.Path(), store.ErrReadOnly)
		}
		return &handle{be: fileBackend{st.db}, db: st.db, docs: fileDocs{st.db}, lib: st.live.Current(), emb: st.embedder(), close: func() {}}, nil
	}
	be, err := openBackend(ctx, e, lf, write)
	if err != nil {
		return nil, err
	}
	h := &handle{be: be, db: be.file(), docs: be.docs(), close: func() { be.Close() }}
	switch need {
	case needStore:
		return h, nil
	case needDocs:
		if h.lib = be.documentsOnly(); h.lib != nil {
			return h, nil
		}
	}
	if err := h.loadEmbedder(ctx, e); err != nil {
		h.close()
		return nil, err
	}
	if h.lib, err = be.queryPath(ctx, h.emb); err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// loadEmbedder builds the embedder the library records, if any.
func (h *handle) loadEmbedder(ctx context.Context, e *env) error {
	meta, err := h.docs.Meta(ctx)
	if err != nil {
		return err
	}
	if meta.Embedder != nil {
		if h.emb, err = newEmbedder(ctx, e, embed.Identity(*meta.Embedder), modelStore(h.db)); err != nil {
			return fmt.Errorf("embedder: %w", err)
		}
	}
	return nil
}

// openOrForward opens the library for command name or, when a running
// server holds it, hands the whole command to that server. A nil handle
// comes with the error to return: the server's status (exited) when the
// command was handed over.
func openOrForward(ctx context.Context, e *env, lf *libFlags, name string, args []string, write bool, need need) (*handle, error) {
	h, err := openLibrary(ctx, e, lf, write, need)
	var fw *forwardTo
	if errors.As(err, &fw) {
		return nil, forward(ctx, e, fw.client, append([]string{name}, args...))
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// withLibrary is the prelude of a library command: it opens the library
// as openOrForward does for the command line cmd (name and arguments, as a
// server would be handed them), runs fn on it and closes it. When a running
// server holds the library, the command runs there and its status is
// returned (exited); fn does not run.
func withLibrary(ctx context.Context, e *env, lf *libFlags, cmd []string, write bool, need need, fn func(h *handle) error) error {
	h, err := openOrForward(ctx, e, lf, cmd[0], cmd[1:], write, need)
	if h == nil {
		return err
	}
	defer h.close()
	return fn(h)
}

// forward runs the command in the server that holds the library and
// returns its status (exited); the server printed its errors.
func forward(ctx context.Context, e *env, c *admin.Client, args []string) error {
	holder, pid := c.Holder()
	if holder == "" || holder == "serve" {
		fmt.Fprintf(e.stderr, "mcpvec: the library is open in a running `mcpvec serve`; handing the command to it\n")
	} else {
		fmt.Fprintf(e.stderr, "mcpvec: the library is open in a running `mcpvec %s` (PID %d); handing the command to it\n", holder, pid)
	}
	code, err := c.Run(ctx, args, e.cwd, e.stdout, e.stderr)
	if err != nil {
		return err
	}
	return exited(code)
}

// libOptions returns the query-path options for an embedder
// (library.EmbedderOptions: the offline embedder weighs query words by the
// library's idf). Searches take searchTurns turns.
func libOptions(emb embed.Embedder) library.Options {
	if emb == nil {
		return library.Options{Concurrency: searchTurns}
	}
	o := library.EmbedderOptions(emb)
	o.Concurrency = searchTurns
	return o
}
