package weaviate

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// classNames are the Weaviate classes of one mcpvec collection.
type classNames struct {
	passage, document, meta string
}

func classesFor(name string) classNames {
	return classNames{passage: name + "Passage", document: name + "Document", meta: name + "Meta"}
}

// property is a Weaviate property definition, as sent and as read back.
type property struct {
	Name            string   `json:"name"`
	DataType        []string `json:"dataType"`
	Tokenization    string   `json:"tokenization,omitempty"`
	IndexFilterable *bool    `json:"indexFilterable,omitempty"`
	IndexSearchable *bool    `json:"indexSearchable,omitempty"`
}

// class is a Weaviate class definition, as sent and as read back.
type class struct {
	Class               string         `json:"class"`
	Description         string         `json:"description,omitempty"`
	Vectorizer          string         `json:"vectorizer"`
	VectorIndexConfig   map[string]any `json:"vectorIndexConfig,omitempty"`
	InvertedIndexConfig map[string]any `json:"invertedIndexConfig,omitempty"`
	ShardingConfig      map[string]any `json:"shardingConfig,omitempty"`
	ReplicationConfig   *replication   `json:"replicationConfig,omitempty"`
	Properties          []property     `json:"properties"`
}

type replication struct {
	Factor           int    `json:"factor,omitempty"`
	AsyncEnabled     bool   `json:"asyncEnabled"`
	DeletionStrategy string `json:"deletionStrategy,omitempty"`
}

var yes, no = new(bool), new(bool)

func init() { *yes = true }

// prop builds a property: kind "text" (BM25-searchable words), "terms"
// (BM25-searchable, already analyzed, split at spaces), "key"
// (exact-match filterable text), "int" (filterable), "num" (an int kept but
// not indexed), "ints", "keys" (text[] kept but not indexed), "date",
// "blob", or "stored" (text kept but not indexed). Sequence numbers are
// decimal text: GraphQL's Int is 32 bits.
func prop(name, kind string) property {
	switch kind {
	case "text":
		return property{Name: name, DataType: []string{"text"}, Tokenization: "word", IndexFilterable: no, IndexSearchable: yes}
	case "terms":
		return property{Name: name, DataType: []string{"text"}, Tokenization: "whitespace", IndexFilterable: no, IndexSearchable: yes}
	case "key":
		return property{Name: name, DataType: []string{"text"}, Tokenization: "field", IndexFilterable: yes, IndexSearchable: no}
	case "stored":
		return property{Name: name, DataType: []string{"text"}, Tokenization: "word", IndexFilterable: no, IndexSearchable: no}
	case "int", "date":
		return property{Name: name, DataType: []string{kind}, IndexFilterable: yes}
	case "num":
		return property{Name: name, DataType: []string{"int"}, IndexFilterable: no}
	case "keys":
		return property{Name: name, DataType: []string{"text[]"}, Tokenization: "field", IndexFilterable: no, IndexSearchable: no}
	case "ints":
		return property{Name: name, DataType: []string{"int[]"}, IndexFilterable: no}
	}
	return property{Name: name, DataType: []string{kind}}
}

// definitions returns the three classes as Open creates them. BM25's k1 and
// b match the embedded lexical index's defaults; vectors are compared by
// cosine distance like the embedded HNSW index.
func (b *Collection) definitions() []class {
	repl := &replication{Factor: b.opts.Replicas, AsyncEnabled: b.opts.AsyncReplication, DeletionStrategy: "TimeBasedResolution"}
	noVectors := map[string]any{"skip": true}
	return []class{{
		Class: b.classes.passage, Description: "mcpvec passages of " + b.name, Vectorizer: "none",
		VectorIndexConfig:   map[string]any{"distance": "cosine"},
		InvertedIndexConfig: b.invertedIndex(),
		ShardingConfig:      map[string]any{"desiredCount": b.opts.Shards},
		ReplicationConfig:   repl,
		Properties: []property{
			prop("text", "text"), prop("terms", "terms"), prop("docId", "key"), prop("index", "int"), prop("seq", "key"),
			prop("start", "num"), prop("end", "num"), prop("pageStart", "int"), prop("pageEnd", "int"), prop("title", "stored"),
			prop("headings", "keys"),
		},
	}, {
		Class: b.classes.document, Description: "mcpvec documents of " + b.name, Vectorizer: "none",
		VectorIndexConfig: noVectors, ReplicationConfig: repl,
		Properties: []property{
			prop("docId", "key"), prop("title", "stored"), prop("sourcePath", "key"), prop("sourceUrl", "stored"),
			prop("mediaType", "stored"), prop("sha256", "key"), prop("size", "int"), prop("pages", "int"),
			prop("ingestedAt", "date"), prop("pageStarts", "ints"), prop("chunks", "keys"),
			prop("text", "stored"), prop("original", "blob"),
		},
	}, {
		Class: b.classes.meta, Description: "mcpvec settings of " + b.name, Vectorizer: "none",
		VectorIndexConfig: noVectors, ReplicationConfig: repl,
		Properties: []property{prop("name", "key"), prop("value", "blob")},
	}}
}

// invertedIndex sets BM25's k1 and b to the embedded index's defaults. With
// an Analyzer, which drops stopwords itself, Weaviate drops none.
func (b *Collection) invertedIndex() map[string]any {
	cfg := map[string]any{"bm25": map[string]any{"k1": 2.0, "b": 0.75}}
	if b.opts.Analyzer != nil {
		cfg["stopwords"] = map[string]any{"preset": "none"}
	}
	return cfg
}

// ensureSchema creates missing classes and checks existing ones. Another
// process creating the same class at the same time is not an error.
func (b *Collection) ensureSchema(ctx context.Context) error {
	for _, want := range b.definitions() {
		got, err := b.getClass(ctx, want.Class)
		if isStatus(err, http.StatusNotFound) {
			err = b.c.do(ctx, http.MethodPost, "/v1/schema", nil, want, nil)
			if isStatus(err, http.StatusUnprocessableEntity) {
				err = nil // created meanwhile by another process: checked below
			}
			if err != nil {
				return fmt.Errorf("create weaviate class %s: %w", want.Class, err)
			}
			got, err = b.getClass(ctx, want.Class)
		}
		if err != nil {
			return fmt.Errorf("read weaviate class %s: %w", want.Class, err)
		}
		if err := b.addMissing(ctx, got, want); err != nil {
			return err
		}
		if err := compatible(got, want); err != nil {
			return err
		}
		if want.Class == b.classes.passage && got.ReplicationConfig != nil {
			b.replicated = got.ReplicationConfig.Factor > 1
		}
	}
	return b.waitGraphQL(ctx)
}

// waitGraphQL waits (at most 10 s) until GraphQL knows the classes: Weaviate
// rebuilds its GraphQL schema a moment after a class is created.
func (b *Collection) waitGraphQL(ctx context.Context) error {
	var err error
	for range 100 {
		if _, err = b.Stats(ctx); err == nil || !strings.Contains(err.Error(), "Cannot query field") {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("weaviate graphql does not know class %s 10 s after creating it: %w", b.classes.passage, err)
}

// addedLater are the properties a newer mcpvec added to a class; a
// collection an older one created gets them added (Weaviate adds a property
// to an existing class in place; older objects simply lack it).
var addedLater = map[string]bool{"headings": true}

// addMissing adds to got the properties of want in addedLater it lacks.
func (b *Collection) addMissing(ctx context.Context, got *class, want class) error {
	for _, w := range want.Properties {
		if !addedLater[w.Name] || slices.ContainsFunc(got.Properties, func(p property) bool { return p.Name == w.Name }) {
			continue
		}
		err := b.c.do(ctx, http.MethodPost, "/v1/schema/"+url.PathEscape(want.Class)+"/properties", nil, w, nil)
		if err != nil && !isStatus(err, http.StatusUnprocessableEntity) { // 422: added meanwhile by another process
			return fmt.Errorf("add property %s to weaviate class %s: %w", w.Name, want.Class, err)
		}
		got.Properties = append(got.Properties, w)
	}
	return nil
}

func (b *Collection) getClass(ctx context.Context, name string) (*class, error) {
	var c class
	err := b.c.do(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(name), nil, nil, &c)
	return &c, err
}

// compatible checks that got has every property of want with its type, and
// no vectorizer. Extra properties and other index settings are tolerated.
func compatible(got *class, want class) error {
	if got.Vectorizer != "none" {
		return fmt.Errorf("%w: class %s has vectorizer %q; mcpvec brings its own vectors (want \"none\")", ErrSchema, got.Class, got.Vectorizer)
	}
	for _, w := range want.Properties {
		i := slices.IndexFunc(got.Properties, func(p property) bool { return p.Name == w.Name })
		if i < 0 {
			return fmt.Errorf("%w: class %s has no property %q (is it an mcpvec collection?)", ErrSchema, got.Class, w.Name)
		}
		if g := got.Properties[i]; !slices.Equal(g.DataType, w.DataType) {
			return fmt.Errorf("%w: class %s property %q is %v, want %v", ErrSchema, got.Class, w.Name, g.DataType, w.DataType)
		}
	}
	return nil
}
