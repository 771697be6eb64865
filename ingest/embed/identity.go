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

// OpenDimensions is how a network provider opens the embedder of a
// recorded or requested identity: build(0) makes one with the model's own
// vector size (probing the server); when want is set and differs,
// build(want) makes one that asks for shortened vectors — only then,
// because some models and servers reject the request field. Errors are
// build's.
func OpenDimensions(want int, build func(dims int) (Embedder, error)) (Embedder, error) {
	e, err := build(0)
	if err != nil {
		return nil, err
	}
	if want == 0 || e.Identity().Dimensions == want {
		return e, nil
	}
	return build(want)
}
