package oauth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpvec/mcpvec/server/oauth"
)

// mapStore is the smallest Store: enough for an example, not atomic.
type mapStore map[string][]byte

func (m mapStore) Get(kind, key string) []byte          { return m[kind+"/"+key] }
func (m mapStore) Put(kind, key string, v []byte) error { m[kind+"/"+key] = v; return nil }
func (m mapStore) Delete(kind, key string) error        { delete(m, kind+"/"+key); return nil }
func (m mapStore) ForEach(string, func(string, []byte) error) error {
	return nil
}
func (m mapStore) View(fn func(oauth.Tx) error) error   { return fn(m) }
func (m mapStore) Update(fn func(oauth.Tx) error) error { return fn(m) }

// Mount the authorization server beside a protected route: a request
// without a token learns where to sign in.
func ExampleNew() {
	auth, err := oauth.New(oauth.Config{
		Issuer:    "https://library.example",
		Resources: []string{"https://library.example/mcp"},
		Store:     mapStore{},
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/.well-known/", auth)
	mux.Handle("/oauth/", auth)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if _, err := auth.Authenticate(r); err != nil {
			auth.Challenge(w, r, err)
			return
		}
		fmt.Fprintln(w, "the library")
	})
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))
	// Output: 401 Bearer resource_metadata="https://library.example/.well-known/oauth-protected-resource/mcp"
}
