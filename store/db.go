package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the on-disk layout this package reads and writes.
// Version 2 added the vector checksums (bucket vsums), version 3 the totals
// record (Totals), version 4 the listing rows (Row, bucketRows); an older
// file is upgraded when first opened for writing.
const SchemaVersion = 4

var (
	bucketMeta      = []byte("meta")
	bucketSettings  = []byte("settings")
	bucketDocs      = []byte("docs")
	bucketTexts     = []byte("texts")
	bucketOriginals = []byte("originals")
	bucketPaths     = []byte("paths")
	bucketChunks    = []byte("chunks")
	bucketVectors   = []byte("vectors")
	bucketSums      = []byte("vsums")
	bucketAux       = []byte("aux")
	allBuckets      = [][]byte{bucketMeta, bucketSettings, bucketDocs, bucketTexts,
		bucketOriginals, bucketPaths, bucketChunks, bucketVectors, bucketAux, bucketRows, bucketTitles}
)

// Options configures Open. A nil *Options means the defaults.
type Options struct {
	// Timeout bounds the wait for another process's lock (default 1 s).
	// bbolt retries every 50 ms; a Timeout under that makes one attempt.
	Timeout time.Duration
	// ReadOnly opens the file with a shared lock; writes fail with ErrReadOnly.
	// The file must already exist.
	ReadOnly bool
	// NoSync skips fsync on commit. Only for tests and benchmarks: a crash
	// may then lose or corrupt recent writes.
	NoSync bool
	// MapRoom is how far past the file's end a writable open maps it, so
	// that small writes (sign-in records, settings) need no remap and
	// leave the indexes reading the file in place (smallwrite.go); it
	// costs address space only. Zero means 64 MiB for files of 64 MiB or
	// more and none for smaller ones, whose map bbolt already rounds up
	// and whose copy costs little (a larger map would also make bbolt grow
	// a small file in 16 MiB steps); a negative value means none.
	MapRoom int64
}

// DB is an open library file. It is safe for concurrent use.
type DB struct {
	bolt     *bolt.DB
	path     string
	readOnly bool
	pidFile  string
	gate     sync.RWMutex // writes share it, Pin takes it alone (pin.go)
	pinMu    sync.Mutex
	evictMu  sync.Mutex // one evictPins at a time (a small write's backstop runs beside writes)
	pins     map[*Pin]struct{}
	begun    atomic.Uint64 // write transactions begun (WriteStats)
	commits  atomic.Uint64 // of them, committed
	volume   volume        // what the commits wrote (WriteVolume)
	backups  backups       // in progress; writes that might remap wait (backup.go)
}

// DefaultPath returns dataHome/mcpvec/library.db, or with dataHome ""
// (the caller passes $XDG_DATA_HOME) ~/.local/share/mcpvec/library.db. It
// fails only when there is no home directory.
func DefaultPath(dataHome string) (string, error) {
	if dataHome != "" {
		return filepath.Join(dataHome, "mcpvec", "library.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "mcpvec", "library.db"), nil
}

// Open opens or creates the library at path. It returns a *LockedError
// (errors.Is ErrLocked) when another process holds it for longer than
// opts.Timeout, and an error matching ErrSchema for a library written by a
// newer mcpvec or a bbolt file that is not a library.
func Open(path string, opts *Options) (*DB, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Second
	}
	if !o.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create library folder: %w", err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open library: %w", err)
	}
	empty, err := checkFile(path)
	if err != nil {
		return nil, err
	}
	if empty && o.ReadOnly {
		return nil, fmt.Errorf("%s: %w (0 bytes)", path, ErrEmpty)
	}
	bo := &bolt.Options{Timeout: o.Timeout, ReadOnly: o.ReadOnly, NoSync: o.NoSync}
	if !o.ReadOnly {
		bo.InitialMmapSize = mapSizeAtOpen(path, o.MapRoom)
	}
	var bdb *bolt.DB
	err = guardPath(path, func() (err error) {
		bdb, err = bolt.Open(path, 0o600, bo)
		return err
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, &LockedError{Path: path, PID: readPID(path + ".pid")}
	}
	if err != nil {
		return nil, fmt.Errorf("open library %s: %w", path, err)
	}
	db := &DB{bolt: bdb, path: path, readOnly: o.ReadOnly}
	if err := db.guard(db.init); err != nil {
		bdb.Close()
		return nil, err
	}
	if !o.ReadOnly {
		db.pidFile = path + ".pid"
		// Informational only: it names the holder in LockedError messages.
		_ = os.WriteFile(db.pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	}
	return db, nil
}

// readPID returns the PID recorded in the sidecar file if that process is
// still alive, else 0: a stale file from a killed writer must not name an
// innocent process (readers, which take a shared lock, record no PID).
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	if p, err := os.FindProcess(pid); err != nil || p.Signal(syscall.Signal(0)) != nil {
		return 0
	}
	return pid
}

func (db *DB) init() error {
	if db.readOnly {
		return db.view(func(tx *bolt.Tx) error {
			m := tx.Bucket(bucketMeta)
			if first, _ := tx.Cursor().First(); m == nil && first == nil {
				return fmt.Errorf("%s: %w: %w", db.path, ErrEmpty, ErrUnwritten)
			}
			if m == nil {
				return fmt.Errorf("%s: %w: no meta record", db.path, ErrSchema)
			}
			return checkSchema(db.path, m.Get([]byte("schema")))
		})
	}
	current, err := db.current()
	if err != nil || current {
		return err
	}
	return db.boltUpdate(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m != nil {
			if err := checkSchema(db.path, m.Get([]byte("schema"))); err != nil {
				return err
			}
		} else {
			// A bbolt file with other buckets is somebody else's data.
			if err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
				return fmt.Errorf("%s: %w: not an mcpvec library (has bucket %q)", db.path, ErrSchema, name)
			}); err != nil {
				return err
			}
		}
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return fmt.Errorf("create bucket %s: %w", b, err)
			}
		}
		m = tx.Bucket(bucketMeta)
		if m.Get([]byte("schema")) == nil {
			if err := m.Put([]byte("created"), []byte(time.Now().UTC().Format(time.RFC3339))); err != nil {
				return err
			}
		}
		return upgrade(tx, m)
	})
}

// current reports whether the file is a library of SchemaVersion with
// every bucket, which Open then leaves as it is: opening a current library
// writes nothing (no commit, no sync). It returns checkSchema's errors.
func (db *DB) current() (bool, error) {
	ok := false
	err := db.view(func(tx *bolt.Tx) error {
		m := tx.Bucket(bucketMeta)
		if m == nil {
			return nil
		}
		if err := checkSchema(db.path, m.Get([]byte("schema"))); err != nil {
			return err
		}
		ok = string(m.Get([]byte("schema"))) == strconv.Itoa(SchemaVersion) &&
			tx.Bucket(bucketSums) != nil && m.Get(totalsKey) != nil && hasBuckets(tx)
		return nil
	})
	return ok, err
}

func hasBuckets(tx *bolt.Tx) bool {
	for _, b := range allBuckets {
		if tx.Bucket(b) == nil {
			return false
		}
	}
	return true
}

// upgrade brings a file of an older schema (or a new one) to SchemaVersion:
// the vector checksums (2), the totals record (3) and the rows (4).
func upgrade(tx *bolt.Tx, m *bolt.Bucket) error {
	if string(m.Get([]byte("schema"))) == strconv.Itoa(SchemaVersion) && tx.Bucket(bucketSums) != nil {
		return nil
	}
	if v, _ := strconv.Atoi(string(m.Get([]byte("schema")))); v < 2 || tx.Bucket(bucketSums) == nil {
		if err := fillSums(tx); err != nil {
			return err
		}
	}
	if m.Get(totalsKey) == nil {
		if err := fillTotals(tx); err != nil {
			return err
		}
	}
	if v, _ := strconv.Atoi(string(m.Get([]byte("schema")))); v < 4 || m.Get(rowSumKey) == nil {
		if err := fillRows(tx); err != nil {
			return err
		}
	}
	return m.Put([]byte("schema"), []byte(strconv.Itoa(SchemaVersion)))
}

func checkSchema(path string, v []byte) error {
	n, err := strconv.Atoi(string(v))
	if err != nil || n < 1 {
		return fmt.Errorf("%s: %w: unreadable schema version %q", path, ErrSchema, v)
	}
	if n > SchemaVersion {
		return fmt.Errorf("%s: %w: written by a newer mcpvec (schema %d; this build reads up to %d) — upgrade mcpvec",
			path, ErrSchema, n, SchemaVersion)
	}
	return nil
}

// Path returns the file's path.
func (db *DB) Path() string { return db.path }

// Close evicts the pins (Pin), closes the file and removes the PID
// sidecar.
func (db *DB) Close() error {
	if db.pidFile != "" {
		if readPID(db.pidFile) == os.Getpid() {
			os.Remove(db.pidFile)
		}
	}
	db.gate.Lock() // a Pin under way registers before its pin is evicted
	defer db.gate.Unlock()
	db.evictPins(true)
	if v := db.WriteVolume(); v.Commits > 0 {
		slog.Debug("store write totals", "path", db.path, "commits", v.Commits, "page_bytes", v.PageBytes,
			"freelist_bytes", v.FreelistBytes, "meta_bytes", v.MetaBytes, "largest_freelist", v.LargestFreelist)
	}
	return db.bolt.Close()
}

// EmbedderInfo is the embedder identity as the meta record persists it
// (JSON). The identity is the embedders' type, embed.Identity; store is a
// leaf, so it keeps this plain record of the same fields and JSON names,
// and the two convert directly: store.EmbedderInfo(id), embed.Identity(rec).
// Same and String are the store's own, for refusing vectors of another
// embedder (SetEmbedder) and saying so.
type EmbedderInfo struct {
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"`
	BaseURL    string `json:"base_url,omitempty"`
}

// Same reports whether two identities produce compatible vectors.
func (e EmbedderInfo) Same(o EmbedderInfo) bool {
	return e.Provider == o.Provider && e.Model == o.Model && e.Dimensions == o.Dimensions
}

func (e EmbedderInfo) String() string {
	return fmt.Sprintf("%s/%s (%d dimensions)", e.Provider, e.Model, e.Dimensions)
}

// Meta is the library's meta record.
type Meta struct {
	SchemaVersion int
	Created       time.Time
	Embedder      *EmbedderInfo // nil until the first ingest
}

// Meta reads the meta record.
func (db *DB) Meta() (Meta, error) {
	var m Meta
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		m.SchemaVersion, _ = strconv.Atoi(string(b.Get([]byte("schema"))))
		m.Created, _ = time.Parse(time.RFC3339, string(b.Get([]byte("created"))))
		var err error
		m.Embedder, err = getEmbedder(b)
		return err
	})
	return m, err
}

func getEmbedder(b *bolt.Bucket) (*EmbedderInfo, error) {
	v := b.Get([]byte("embedder"))
	if v == nil {
		return nil, nil
	}
	var e EmbedderInfo
	if err := json.Unmarshal(v, &e); err != nil {
		return nil, fmt.Errorf("decode embedder record: %w", err)
	}
	return &e, nil
}

// SetEmbedder records the library's embedder on first use. If one is already
// recorded and differs, it returns an error matching ErrEmbedderMismatch.
func (db *DB) SetEmbedder(e EmbedderInfo) error {
	if e.Dimensions <= 0 {
		return fmt.Errorf("set embedder: dimensions must be positive, got %d", e.Dimensions)
	}
	return db.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		old, err := getEmbedder(b)
		if err != nil {
			return err
		}
		if old != nil {
			if !old.Same(e) {
				return fmt.Errorf("%w: the library was built with %s, not %s; use `mcpvec reindex` to switch",
					ErrEmbedderMismatch, old, e)
			}
			return nil
		}
		return putJSON(b, []byte("embedder"), e)
	})
}

// Setting returns a stored setting or ErrNotFound.
func (db *DB) Setting(name string) ([]byte, error) {
	return db.valueCopy(bucketSettings, name, fmt.Sprintf("setting %q", name))
}

// valueCopy returns a copy of the value at key in bucket, or an error
// naming what that wraps ErrNotFound.
func (db *DB) valueCopy(bucket []byte, key, what string) ([]byte, error) {
	var out []byte
	err := db.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get([]byte(key))
		if v == nil {
			return fmt.Errorf("%s: %w", what, ErrNotFound)
		}
		out = append([]byte(nil), v...)
		return nil
	})
	return out, err
}

// PutSetting stores a setting.
func (db *DB) PutSetting(name string, value []byte) error {
	return db.updateSmall(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSettings).Put([]byte(name), value)
	})
}

// SettingOrCreate returns the setting, creating it with create() first if it
// does not exist. It is how stable secrets (link keys) are kept.
func (db *DB) SettingOrCreate(name string, create func() ([]byte, error)) ([]byte, error) {
	v, err := db.Setting(name)
	if err == nil || !errors.Is(err, ErrNotFound) || db.readOnly {
		return v, err
	}
	nv, err := create()
	if err != nil {
		return nil, err
	}
	err = db.updateSmall(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketSettings)
		if cur := b.Get([]byte(name)); cur != nil {
			nv = append([]byte(nil), cur...)
			return nil
		}
		return b.Put([]byte(name), nv)
	})
	return nv, err
}

// WriteStats counts a DB's write transactions since Open, the one Open
// itself may run included: what tells that a command which changed
// nothing wrote nothing.
type WriteStats struct {
	// Begun counts the write transactions begun. All but Check's evict
	// the pins first.
	Begun uint64
	// Committed counts those that committed: each wrote the file and,
	// without Options.NoSync, synced it.
	Committed uint64
}

// WriteStats returns the write transactions counted so far. It is safe for
// concurrent use.
func (db *DB) WriteStats() WriteStats {
	return WriteStats{Begun: db.begun.Load(), Committed: db.commits.Load()}
}

// boltUpdate is bbolt's Update, counted in WriteStats and WriteVolume.
func (db *DB) boltUpdate(fn func(tx *bolt.Tx) error) error {
	db.begun.Add(1)
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		// The page size is read here, inside the write transaction: the
		// commit handler runs after bbolt released its locks, when another
		// writer may be remapping the file, and DB.Info reads the mapping.
		page := int64(tx.DB().Info().PageSize)
		tx.OnCommit(func() { db.volume.add(tx, db.bolt, page) })
		return fn(tx)
	})
	if err != nil {
		return err
	}
	db.commits.Add(1)
	return nil
}

func (db *DB) update(fn func(tx *bolt.Tx) error) error { return db.writeTx(fn, true) }

// writeTx runs fn in a read-write transaction. With evict it first evicts
// the pins (Pin), which a transaction that writes nothing need not do
// (consistentView: a remap or a freed page needs a write).
func (db *DB) writeTx(fn func(tx *bolt.Tx) error, evict bool) error {
	if db.readOnly {
		return ErrReadOnly
	}
	db.gateWrite()
	defer db.gate.RUnlock()
	return db.guard(func() error {
		if evict {
			db.evictPins(false)
		}
		return db.boltUpdate(fn)
	})
}

// view runs fn in a read transaction, with bbolt's panics and memory faults
// on a damaged file turned into ErrCorrupt.
func (db *DB) view(fn func(tx *bolt.Tx) error) error {
	return db.guard(func() error { return db.bolt.View(fn) })
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, data)
}
