// Package dist holds the files a release ships besides the binary (the
// systemd unit, the launchd plist, the Claude Desktop bundle's manifest) and
// their tests; scripts/release.sh (make release) builds the release.
package dist

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaunchdPlistParses reads dist/com.mcpvec.serve.plist as launchd does:
// an XML property list whose dict alternates keys and values, naming its
// label and the installed binary; python3's plistlib loads it too when
// python3 is here (the nearest thing to plutil -lint off macOS).
func TestLaunchdPlistParses(t *testing.T) {
	top := readPlist(t, "com.mcpvec.serve.plist")
	if got, want := top["Label"], "com.mcpvec.serve"; got != want {
		t.Errorf("Label = %q, want %q", got, want)
	}
	if got, want := top["ProgramArguments"], "/usr/local/bin/mcpvec serve --watch --addr 127.0.0.1:8080"; got != want {
		t.Errorf("ProgramArguments = %q, want %q", got, want)
	}
	for _, k := range []string{"RunAtLoad", "KeepAlive", "StandardErrorPath"} {
		if _, ok := top[k]; !ok {
			t.Errorf("no %s key", k)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: plistlib check skipped")
		return
	}
	out, err := exec.Command(py, "-c", "import plistlib,sys; plistlib.load(open(sys.argv[1],'rb'))", "com.mcpvec.serve.plist").CombinedOutput()
	if err != nil {
		t.Errorf("plistlib.load: %v\n%s", err, out)
	}
}

// readPlist returns the top dict of a plist: each key with its string, its
// array's strings joined by spaces, or its element name (true, dict, ...).
func readPlist(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var path []string
	top, key := map[string]string{}, ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			path = append(path, tk.Name.Local)
			if len(path) == 3 && tk.Name.Local != "key" {
				if key == "" {
					t.Fatalf("%s: a %s value without a key", name, tk.Name.Local)
				}
				top[key] = tk.Name.Local
			}
		case xml.EndElement:
			if len(path) == 3 && tk.Name.Local != "key" {
				key = ""
			}
			path = path[:len(path)-1]
		case xml.CharData:
			s := strings.TrimSpace(string(tk))
			switch {
			case s == "":
			case len(path) == 3 && path[2] == "key":
				if key != "" {
					t.Fatalf("%s: key %q follows key %q", name, s, key)
				}
				key = s
			case len(path) == 3:
				top[key] = s
			case len(path) == 4 && path[2] == "array":
				top[key] = strings.TrimPrefix(strings.TrimPrefix(top[key], "array")+" "+s, " ")
			}
		}
	}
	if len(top) == 0 {
		t.Fatalf("%s: no <plist><dict> keys", name)
	}
	return top
}

// TestSystemdUnitVerifies runs systemd-analyze verify on dist/mcpvec.service
// (its ExecStart pointed at /bin/true, since verify wants an executable that
// exists) and fails on any line it prints: an unknown or misspelt option is
// only a warning there.
func TestSystemdUnitVerifies(t *testing.T) {
	b, err := os.ReadFile("mcpvec.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(b)
	const exec0 = "ExecStart=/usr/local/bin/mcpvec serve --db /var/lib/mcpvec/library.db --addr 127.0.0.1:8080\n"
	for _, want := range []string{exec0, "DynamicUser=yes\n", "StateDirectory=mcpvec\n", "ProtectSystem=strict\n",
		"NoNewPrivileges=yes\n", "PrivateTmp=yes\n", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX\n",
		"SystemCallFilter=@system-service\n", "MemoryDenyWriteExecute=no\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("mcpvec.service lacks %q", want)
		}
	}
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		requiredOrSkip(t, "systemd-analyze not found (apt-get install systemd)")
	}
	p := filepath.Join(t.TempDir(), "mcpvec.service")
	if err := os.WriteFile(p, []byte(strings.Replace(unit, "/usr/local/bin/mcpvec ", "/bin/true ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", p).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// requiredOrSkip skips the test, or fails it when MCPVEC_RELEASE_TESTS says
// the release tools are required.
func requiredOrSkip(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("MCPVEC_RELEASE_TESTS") == "required" {
		t.Fatal(why)
	}
	t.Skip(why)
}
