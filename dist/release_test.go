package dist

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestReleaseScript runs scripts/release.sh (what make release runs) for
// this machine's linux build and windows/amd64 into a temporary directory,
// then checks what a person downloading it would: every file matches
// SHA256SUMS, the archives hold the binary, README.md, CHANGELOG.md and the
// unit file, the extracted binary's `version` names the version and build
// date, the .mcpb holds its manifest and binary, and the SBOM is CycloneDX.
// It builds twice and installs cyclonedx-gomod, so it runs only with
// MCPVEC_RELEASE_TESTS=1 (or required).
func TestReleaseScript(t *testing.T) {
	if os.Getenv("MCPVEC_RELEASE_TESTS") == "" || runtime.GOOS != "linux" {
		t.Skip("set MCPVEC_RELEASE_TESTS=1 to run the release script (two cross builds) on linux")
	}
	out := t.TempDir()
	const version = "v0.0.0-test"
	cmd := exec.Command("bash", filepath.Join("..", "scripts", "release.sh"), version)
	cmd.Env = append(os.Environ(), "OUT="+out, "PLATFORMS=linux/"+runtime.GOARCH+" windows/amd64",
		"BUILD_DATE=2026-12-05T06:00:00Z")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, b)
	}
	checkSums(t, out)
	base := filepath.Join(out, "mcpvec_"+version+"_linux_"+runtime.GOARCH)
	names := untar(t, base+".tar.gz", out)
	dir := "mcpvec_" + version + "_linux_" + runtime.GOARCH + "/"
	for _, want := range []string{"mcpvec", "README.md", "CHANGELOG.md", "mcpvec.service"} {
		if !slices.Contains(names, dir+want) {
			t.Errorf("tar.gz lacks %s (has %q)", want, names)
		}
	}
	v, err := exec.Command(filepath.Join(out, dir, "mcpvec"), "version").Output()
	if err != nil || !strings.HasPrefix(string(v), "mcpvec "+version+" (") || !strings.Contains(string(v), "built 2026-12-05T06:00:00Z") || !strings.Contains(string(v), "(commit ") {
		t.Errorf("mcpvec version: %v %q", err, v)
	}
	win := "mcpvec_" + version + "_windows_amd64"
	if z := zipNames(t, filepath.Join(out, win+".zip")); !slices.Contains(z, win+"/mcpvec.exe") || !slices.Contains(z, win+"/README.md") {
		t.Errorf("windows zip holds %q", z)
	}
	if z := zipNames(t, filepath.Join(out, win+".mcpb")); !slices.Contains(z, "manifest.json") || !slices.Contains(z, "server/mcpvec.exe") {
		t.Errorf("windows .mcpb holds %q", z)
	}
	var sbom struct{ BOMFormat string }
	if b, err := os.ReadFile(filepath.Join(out, "mcpvec_"+version+".sbom.cdx.json")); err != nil || json.Unmarshal(b, &sbom) != nil || sbom.BOMFormat != "CycloneDX" {
		t.Errorf("sbom: %v, format %q", err, sbom.BOMFormat)
	}
}

// checkSums checks every line of dir/SHA256SUMS against the file it names.
func checkSums(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		sum, name, _ := strings.Cut(sc.Text(), "  ")
		b, err := os.ReadFile(filepath.Join(dir, name))
		if h := sha256.Sum256(b); err != nil || hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: %v, sum mismatch", name, err)
		}
	}
	if n != 5 { // tar.gz, zip, two .mcpb, the SBOM
		t.Errorf("SHA256SUMS lists %d files, want 5", n)
	}
}

// untar extracts a .tar.gz into dir and returns its entry names.
func untar(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tr := tar.NewReader(zr); ; {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, strings.TrimSuffix(h.Name, "/"))
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := io.ReadAll(tr)
		if err == nil {
			err = os.WriteFile(p, b, os.FileMode(h.Mode))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// zipNames lists a zip archive's entries.
func zipNames(t *testing.T, path string) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, strings.TrimSuffix(f.Name, "/"))
	}
	return names
}
