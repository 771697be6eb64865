package weaviate

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcpvec/mcpvec/store"
)

// SchemaVersion is the layout of the collections this package writes.
const SchemaVersion = 1

// MinVersion is the oldest Weaviate release OpenCollection accepts: asynchronous
// replication and per-class deletion strategies arrived in 1.26.
const MinVersion = "1.26.0"

// Consistency levels for reads and writes of a replicated collection.
const (
	One    = "ONE"
	Quorum = "QUORUM"
	All    = "ALL"
)

// Options configures Open, OpenCollection and New. The zero value (or nil)
// means the defaults.
type Options struct {
	// APIKey is sent as a bearer token; "" sends none (anonymous access).
	APIKey string
	// Shards is the number of shards of the passages collection when Open
	// creates it (default 1). Existing collections keep theirs.
	Shards int
	// Replicas is the replication factor when Open creates the collections
	// (default 1). Existing collections keep theirs.
	Replicas int
	// AsyncReplication turns on Weaviate's background repair of replicas
	// when Open creates the collections; use it with Replicas > 1 so a
	// node that was down catches up on writes it missed.
	AsyncReplication bool
	// Consistency is the level of every read and write on a replicated
	// collection: One, Quorum (default) or All. Quorum for both reads and
	// writes means every read sees every acknowledged write (R + W > N)
	// while one node of three may be down.
	Consistency string
	// Analyzer, when set, turns passage text and queries into the terms
	// BM25 ranks (analysis.Tokenize gives the embedded library's
	// stemming and stopwords), stored in the passages' "terms" property;
	// without it Weaviate's own word tokenizer ranks the raw text.
	// AnalyzerName identifies it: Open records the name in a new collection
	// and refuses (ErrSchema) a collection recorded with another, whose
	// terms would not match the queries, unless that other is one of
	// Compatible: analyzers whose terms this one still matches in the main
	// (an earlier version that differed only in some languages), opened
	// with one warning saying what stays as it was.
	Analyzer     func(text string) []string
	AnalyzerName string
	Compatible   []string
	// BatchSize is the number of objects per batch request (default 100).
	BatchSize int
	// HTTPClient sends the requests (default: a client with a 60 s timeout).
	HTTPClient *http.Client
	// Logger receives warnings (default slog.Default()).
	Logger *slog.Logger

	// The fields below configure the Backend (Open, New); OpenCollection
	// ignores them.

	// Fusion and VectorWeight are the library's (library.Options): how
	// Weaviate fuses its BM25 and vector lists.
	Fusion       string
	VectorWeight float64
	// Timeout bounds each Backend call to Weaviate (default 60 s), within
	// the caller's context when the call has one.
	Timeout time.Duration
	// CountsTTL is how long Counts answers from its last reading (default 2 s).
	CountsTTL time.Duration
	// RecentTTL is how long passages and document records a search brought
	// back answer the library's follow-up reads (default 2 s).
	RecentTTL time.Duration
}

func (o *Options) withDefaults() Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.Shards <= 0 {
		out.Shards = 1
	}
	if out.Replicas <= 0 {
		out.Replicas = 1
	}
	if out.Consistency == "" {
		out.Consistency = Quorum
	}
	if out.BatchSize <= 0 {
		out.BatchSize = 100
	}
	if out.HTTPClient == nil {
		out.HTTPClient = &http.Client{Timeout: 60 * time.Second}
	}
	if out.Logger == nil {
		out.Logger = slog.Default()
	}
	out.withBackendDefaults()
	return out
}

// withBackendDefaults fills the Backend's fields.
func (o *Options) withBackendDefaults() {
	if o.VectorWeight <= 0 {
		o.VectorWeight = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.CountsTTL <= 0 {
		o.CountsTTL = 2 * time.Second
	}
	if o.RecentTTL <= 0 {
		o.RecentTTL = 2 * time.Second
	}
}

// Collection is an mcpvec library kept in three Weaviate classes, spoken
// to directly: every method takes a context and maps to a few requests.
// Backend puts it behind the library's seam. A Collection is safe for
// concurrent use, also by several processes on several hosts sharing one
// collection.
type Collection struct {
	c           *client
	url         string // as given to OpenCollection
	name        string // the collection named in the URL
	classes     classNames
	consistency string
	replicated  bool // the passages collection has a factor > 1
	version     string
	opts        Options

	mu       sync.Mutex
	embedder *store.EmbedderInfo // cached once recorded
}

var collectionRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// ParseURL splits a store URL, weaviate://host:port/Collection (http) or
// weaviates://host:port/Collection (https), into the server's base URL and
// the collection name, whose first letter is upper-cased as Weaviate
// requires. It returns an error wrapping ErrURL.
func ParseURL(raw string) (base, collection string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrURL, err)
	}
	scheme := map[string]string{"weaviate": "http", "weaviates": "https"}[u.Scheme]
	if scheme == "" || u.Host == "" {
		return "", "", fmt.Errorf("%w %q: want weaviate://host:port/Collection or weaviates://…", ErrURL, raw)
	}
	name := strings.Trim(u.Path, "/")
	if !collectionRE.MatchString(name) {
		return "", "", fmt.Errorf("%w %q: the collection name must be letters, digits and _, starting with a letter", ErrURL, raw)
	}
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return scheme + "://" + u.Host, string(r), nil
}

// OpenCollection connects to the Weaviate at rawURL (see ParseURL), checks its
// version, and creates the collection's classes if they are missing or
// checks them if they exist. Errors wrap ErrURL, ErrUnreachable, ErrAuth,
// ErrVersion or ErrSchema.
func OpenCollection(ctx context.Context, rawURL string, opts *Options) (*Collection, error) {
	o := opts.withDefaults()
	base, name, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	switch o.Consistency {
	case One, Quorum, All:
	default:
		return nil, fmt.Errorf("weaviate consistency %q: want ONE, QUORUM or ALL", o.Consistency)
	}
	b := &Collection{
		c:   &client{base: base, apiKey: o.APIKey, http: o.HTTPClient},
		url: rawURL, name: name, classes: classesFor(name), consistency: o.Consistency, opts: o,
	}
	if err := b.checkVersion(ctx); err != nil {
		return nil, err
	}
	if err := b.ensureSchema(ctx); err != nil {
		return nil, err
	}
	if err := b.checkSchemaVersion(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// checkVersion reads /v1/meta and compares its version with MinVersion.
func (b *Collection) checkVersion(ctx context.Context) error {
	var meta struct {
		Version string `json:"version"`
	}
	if err := b.c.do(ctx, http.MethodGet, "/v1/meta", nil, nil, &meta); err != nil {
		return fmt.Errorf("open weaviate %s: %w", b.c.base, err)
	}
	if !versionAtLeast(meta.Version, MinVersion) {
		return fmt.Errorf("%w: %s runs Weaviate %q, mcpvec needs %s or newer", ErrVersion, b.c.base, meta.Version, MinVersion)
	}
	b.version = meta.Version
	return nil
}

// versionAtLeast compares dotted versions numerically ("1.35.2-rc.1" reads
// as 1.35.2); an unparsable version is too old.
func versionAtLeast(v, min string) bool {
	parse := func(s string) (out [3]int, ok bool) {
		s, _, _ = strings.Cut(strings.TrimPrefix(s, "v"), "-")
		parts := strings.Split(s, ".")
		if len(parts) < 2 {
			return out, false
		}
		for i := 0; i < len(parts) && i < 3; i++ {
			n, err := strconv.Atoi(parts[i])
			if err != nil {
				return out, false
			}
			out[i] = n
		}
		return out, true
	}
	a, ok := parse(v)
	m, _ := parse(min)
	if !ok {
		return false
	}
	for i := range a {
		if a[i] != m[i] {
			return a[i] > m[i]
		}
	}
	return true
}

// Version is the server's version, read by OpenCollection.
func (b *Collection) Version() string { return b.version }

// Name is the collection name from the URL.
func (b *Collection) Name() string { return b.name }

// URL is the URL the collection was opened with.
func (b *Collection) URL() string { return b.url }

// Close releases idle connections. The Collection must not be used after.
func (b *Collection) Close() error {
	b.c.http.CloseIdleConnections()
	return nil
}

// checkSchemaVersion records SchemaVersion in a new collection and refuses
// one written by a newer mcpvec.
func (b *Collection) checkSchemaVersion(ctx context.Context) error {
	v, err := b.SettingOrCreate(ctx, settingSchema, func() ([]byte, error) {
		return []byte(strconv.Itoa(SchemaVersion)), nil
	})
	if err != nil {
		return fmt.Errorf("open weaviate collection %s: %w", b.name, err)
	}
	n, err := strconv.Atoi(string(v))
	if err != nil || n > SchemaVersion {
		return fmt.Errorf("%w: collection %s has mcpvec schema version %q, this mcpvec knows %d", ErrSchema, b.name, v, SchemaVersion)
	}
	if _, err = b.SettingOrCreate(ctx, settingCreated, func() ([]byte, error) {
		return []byte(time.Now().UTC().Format(time.RFC3339)), nil
	}); err != nil {
		return fmt.Errorf("open weaviate collection %s: %w", b.name, err)
	}
	name := b.opts.AnalyzerName
	if b.opts.Analyzer == nil {
		name = "none" // Weaviate drops an empty blob
	} else if name == "" {
		name = "unnamed"
	}
	got, err := b.SettingOrCreate(ctx, settingAnalyzer, func() ([]byte, error) { return []byte(name), nil })
	if err != nil {
		return fmt.Errorf("open weaviate collection %s: %w", b.name, err)
	}
	if string(got) != name && slices.Contains(b.opts.Compatible, string(got)) {
		b.opts.Logger.Warn("weaviate collection indexed by an earlier analyzer: its passages keep their terms until ingested again",
			"collection", b.name, "analyzer", string(got), "now", name)
		return nil
	}
	if string(got) != name {
		return fmt.Errorf("%w: collection %s ranks BM25 with analyzer %q, not %q", ErrSchema, b.name, got, name)
	}
	return nil
}
