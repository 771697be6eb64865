package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/mcpvec/mcpvec/store"
)

// Names of the settings this package writes itself.
const (
	settingSchema   = "schema"
	settingEmbedder = "embedder"
	settingCreated  = "created"
	settingAnalyzer = "analyzer"
)

// namespace seeds the deterministic object ids (UUID v5), so every process
// maps a passage or document id to the same Weaviate object.
var namespace = uuid.MustParse("3f1c7a52-8d0b-4c4e-9a55-6d2f0e4b9c11")

func objectID(kind, key string) string {
	return uuid.NewSHA1(namespace, []byte(kind+"\x00"+key)).String()
}

// object is a Weaviate data object as sent and read by the REST API.
type object struct {
	Class      string         `json:"class"`
	ID         string         `json:"id"`
	Properties map[string]any `json:"properties"`
	Vector     []float32      `json:"vector,omitempty"`
}

// settingObject is the meta class's object, properties decoded.
type settingObject struct {
	Properties struct {
		Value []byte `json:"value"` // blob: base64 on the wire
	} `json:"properties"`
}

// Setting returns a named setting (e.g. a link-signing key) or
// store.ErrNotFound.
func (b *Collection) Setting(ctx context.Context, name string) ([]byte, error) {
	var o settingObject
	path := "/v1/objects/" + b.classes.meta + "/" + objectID("setting", name)
	if err := b.c.do(ctx, http.MethodGet, path, b.readLevel(), nil, &o); err != nil {
		if isStatus(err, http.StatusNotFound) {
			return nil, fmt.Errorf("setting %q: %w", name, store.ErrNotFound)
		}
		return nil, fmt.Errorf("setting %q: %w", name, err)
	}
	return o.Properties.Value, nil
}

// PutSetting writes a named setting, replacing any previous value.
func (b *Collection) PutSetting(ctx context.Context, name string, value []byte) error {
	if err := b.putObjects(ctx, []object{b.settingObject(name, value)}); err != nil {
		return fmt.Errorf("put setting %q: %w", name, err)
	}
	return nil
}

func (b *Collection) settingObject(name string, value []byte) object {
	return object{Class: b.classes.meta, ID: objectID("setting", name),
		Properties: map[string]any{"name": name, "value": value}}
}

// SettingOrCreate returns a named setting, creating it with create() when
// absent. When several processes race, Weaviate's create-only POST keeps one
// value and every caller returns that value.
func (b *Collection) SettingOrCreate(ctx context.Context, name string, create func() ([]byte, error)) ([]byte, error) {
	v, err := b.Setting(ctx, name)
	if err == nil || !isNotFound(err) {
		return v, err
	}
	if v, err = create(); err != nil {
		return nil, fmt.Errorf("create setting %q: %w", name, err)
	}
	err = b.c.do(ctx, http.MethodPost, "/v1/objects", b.writeLevel(), b.settingObject(name, v), nil)
	if isStatus(err, http.StatusUnprocessableEntity) {
		return b.Setting(ctx, name) // another process created it first
	}
	if err != nil {
		return nil, fmt.Errorf("create setting %q: %w", name, err)
	}
	return v, nil
}

// Meta reads the schema version, creation time and embedder identity.
func (b *Collection) Meta(ctx context.Context) (store.Meta, error) {
	var m store.Meta
	v, err := b.Setting(ctx, settingSchema)
	if err != nil {
		return m, fmt.Errorf("read meta: %w", err)
	}
	fmt.Sscan(string(v), &m.SchemaVersion)
	if v, err := b.Setting(ctx, settingCreated); err == nil {
		m.Created, _ = time.Parse(time.RFC3339, string(v))
	}
	v, err = b.Setting(ctx, settingEmbedder)
	if isNotFound(err) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read meta: %w", err)
	}
	m.Embedder = new(store.EmbedderInfo)
	if err := json.Unmarshal(v, m.Embedder); err != nil {
		return m, fmt.Errorf("read meta: embedder: %w", err)
	}
	return m, nil
}

// SetEmbedder records the embedder identity, or checks it against the one
// recorded: a different one is store.ErrEmbedderMismatch.
func (b *Collection) SetEmbedder(ctx context.Context, e store.EmbedderInfo) error {
	want, err := json.Marshal(e)
	if err != nil {
		return err
	}
	v, err := b.SettingOrCreate(ctx, settingEmbedder, func() ([]byte, error) { return want, nil })
	if err != nil {
		return fmt.Errorf("set embedder: %w", err)
	}
	var got store.EmbedderInfo
	if err := json.Unmarshal(v, &got); err != nil {
		return fmt.Errorf("set embedder: recorded identity: %w", err)
	}
	if !got.Same(e) {
		return fmt.Errorf("%w: the collection holds vectors of %s, not %s", store.ErrEmbedderMismatch, got, e)
	}
	b.mu.Lock()
	b.embedder = &got
	b.mu.Unlock()
	return nil
}

// recordedEmbedder returns the embedder identity, read once and then kept:
// it never changes once recorded. It is nil while none is recorded.
func (b *Collection) recordedEmbedder(ctx context.Context) (*store.EmbedderInfo, error) {
	b.mu.Lock()
	e := b.embedder
	b.mu.Unlock()
	if e != nil {
		return e, nil
	}
	m, err := b.Meta(ctx)
	if err != nil || m.Embedder == nil {
		return nil, err
	}
	b.mu.Lock()
	b.embedder = m.Embedder
	b.mu.Unlock()
	return m.Embedder, nil
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// readLevel and writeLevel are the consistency_level query parameters.
func (b *Collection) readLevel() url.Values  { return url.Values{"consistency_level": {b.consistency}} }
func (b *Collection) writeLevel() url.Values { return url.Values{"consistency_level": {b.consistency}} }
