package oauth

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/mcpvec/mcpvec/internal/golden"
)

// TestAuthGoldenMetadata keeps the discovery documents clients read from
// changing by accident.
func TestAuthGoldenMetadata(t *testing.T) {
	srv, err := New(Config{Issuer: "https://library.example", Store: newMemStore(),
		Resources: []string{"https://library.example/mcp", "https://library.example/sse"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"server-metadata.json":       pathASMeta,
		"resource-metadata.json":     pathPRM,
		"resource-metadata-mcp.json": pathPRM + "/mcp",
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var pretty bytes.Buffer
		if rec.Code != http.StatusOK || json.Indent(&pretty, rec.Body.Bytes(), "", "  ") != nil {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		golden.Compare(t, filepath.Join("testdata", name), pretty.Bytes())
	}
}
