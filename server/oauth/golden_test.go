package oauth

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

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
		golden := filepath.Join("testdata", name)
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(golden, pretty.Bytes(), 0o644)
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if !bytes.Equal(pretty.Bytes(), want) {
			t.Errorf("%s differs from %s:\n%s", path, golden, pretty.String())
		}
	}
}
