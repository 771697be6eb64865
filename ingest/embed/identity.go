package embed

import "github.com/mcpvec/mcpvec/store"

// Identity names the vectors an embedder makes: what a library records and
// what Open builds an embedder from. It never contains secrets.
//
// store.EmbedderInfo is the record the store persists in the meta record
// (store is a leaf and imports no embedder): it has the same fields and
// JSON names, so the two convert directly, embed.Identity(rec) and
// store.EmbedderInfo(id), and the bytes on disk are the same.
type Identity struct {
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"`
	BaseURL    string `json:"base_url,omitempty"`
}

// Same reports whether two identities produce compatible vectors: the same
// provider, model and dimensions (the base URL may move).
// The rule is the store's, which refuses vectors of another embedder.
func (i Identity) Same(o Identity) bool {
	return store.EmbedderInfo(i).Same(store.EmbedderInfo(o))
}

// String is "provider/model (N dimensions)".
func (i Identity) String() string { return store.EmbedderInfo(i).String() }
