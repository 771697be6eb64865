package dist

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// renderManifest fills dist/mcpb/manifest.json.in as scripts/release.sh does.
func renderManifest(t *testing.T, version, bin, platform string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("mcpb", "manifest.json.in"))
	if err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer("@VERSION@", version, "@BIN@", bin, "@PLATFORM@", platform)
	return []byte(r.Replace(string(b)))
}

// TestBundleManifestValidates renders the Claude Desktop bundle's manifest
// for a macOS and a Windows build and has the pinned official tool
// (@anthropic-ai/mcpb, `npm ci` in dist/) validate each; it also checks the
// server runs the bundled binary as `serve --stdio` on the chosen library.
func TestBundleManifestValidates(t *testing.T) {
	mcpb, err := filepath.Abs(filepath.Join("node_modules", ".bin", "mcpb"))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(mcpb)
	_, nodeErr := exec.LookPath("node")
	for _, tc := range []struct{ bin, platform string }{{"mcpvec", "darwin"}, {"mcpvec.exe", "win32"}} {
		m := renderManifest(t, "1.2.3", tc.bin, tc.platform)
		var got struct {
			Server struct {
				Type       string
				EntryPoint string `json:"entry_point"`
				MCPConfig  struct {
					Command string
					Args    []string
				} `json:"mcp_config"`
			}
			Compatibility struct{ Platforms []string }
			UserConfig    map[string]struct{ Type string } `json:"user_config"`
		}
		if err := json.Unmarshal(m, &got); err != nil {
			t.Fatalf("%s manifest: %v", tc.platform, err)
		}
		if got, want := got.Server.MCPConfig.Command, "${__dirname}/server/"+tc.bin; got != want {
			t.Errorf("command = %q, want %q", got, want)
		}
		if want := []string{"serve", "--stdio", "--db", "${user_config.library}"}; !slices.Equal(got.Server.MCPConfig.Args, want) {
			t.Errorf("args = %q, want %q", got.Server.MCPConfig.Args, want)
		}
		if got, want := got.Server.EntryPoint, "server/"+tc.bin; got != want {
			t.Errorf("entry_point = %q, want %q", got, want)
		}
		if got.UserConfig["library"].Type != "file" || !slices.Equal(got.Compatibility.Platforms, []string{tc.platform}) {
			t.Errorf("user_config %v, platforms %v", got.UserConfig, got.Compatibility.Platforms)
		}
		if statErr != nil || nodeErr != nil {
			requiredOrSkip(t, "the mcpb tool is not installed (node, then `npm ci` in dist/)")
		}
		p := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.WriteFile(p, m, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(mcpb, "validate", p).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Manifest schema validation passes") {
			t.Errorf("mcpb validate (%s): %v\n%s", tc.platform, err, out)
		}
	}
}
