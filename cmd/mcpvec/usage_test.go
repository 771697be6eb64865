package main

import (
	"bytes"
	"context"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// runInProcess runs one mcpvec command in this process with its own
// streams and returns its exit status, stdout and stderr.
func runInProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, cwd: t.TempDir()}
	code := dispatch(context.Background(), args, e)
	return code, out.String(), errb.String()
}

// flagLine matches a flag's line in --help: its name and the name of its
// value, if any.
var flagLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+)(?: ([^\s]+))?`)

// TestHelpShowsNoValueForOnOffFlags is issue 34 item 8: a --help line gave
// on/off flags such as `ls --roots`, `serve --oauth` and `serve --watch` a
// value ("-roots mcpvec sync") because their usage quotes a command. Every
// flag of every command is spelled --name, and an on/off flag shows no
// value.
func TestHelpShowsNoValueForOnOffFlags(t *testing.T) {
	onOff := map[string]bool{"json": true, "roots": true, "oauth": true, "watch": true, "stdio": true, "read-only": true,
		"secret-path": true, "v": true, "force": true, "dry-run": true, "repair": true, "discard": true}
	seen := map[string]bool{}
	for _, c := range commands() {
		if c.name == "auth" {
			continue // its help lists subcommands, not flags
		}
		code, _, help := runInProcess(t, c.name, "--help")
		if code != 0 || (c.name != "version" && !strings.Contains(help, "\n  --db")) {
			t.Fatalf("%s --help: exit %d\n%s", c.name, code, help)
		}
		for _, m := range flagLine.FindAllStringSubmatch(help, -1) {
			name, value := m[1], m[2]
			if onOff[name] && value != "" {
				t.Errorf("%s --help: on/off flag --%s shown taking a value %q", c.name, name, value)
			}
			if value == "value" {
				t.Errorf("%s --help: --%s takes an unnamed value", c.name, name)
			}
			seen[name] = true
		}
		if strings.Contains(help, "\n  -") && !strings.Contains(help, "\n  --") {
			t.Errorf("%s --help spells flags -name:\n%s", c.name, help)
		}
	}
	for _, name := range []string{"roots", "oauth", "watch", "json"} {
		if !seen[name] {
			t.Errorf("no --%s line in any command's help", name)
		}
	}
}

// TestVersionFlagAndCommand is issue 34 item 8: `mcpvec --version` was an
// unknown command. It and `mcpvec version` print the version with the
// commit and its date when the binary records them.
func TestVersionFlagAndCommand(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errs := runInProcess(t, args...)
		if code != 0 || !strings.HasPrefix(out, "mcpvec "+Version) || errs != "" {
			t.Errorf("mcpvec %v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "739de99f1a2b3c4d5e6f70819283746556473829"},
		{Key: "vcs.time", Value: "2026-12-04T23:10:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		stamped string
		built   string
		bi      *debug.BuildInfo
		want    string
	}{
		{"v1.4.0", "", bi, "mcpvec v1.4.0 (commit 739de99f1a2b, modified, 2026-12-04T23:10:00Z, go1.26.8)"},
		{"v1.4.0", "2026-12-05T06:00:00Z", bi, "mcpvec v1.4.0 (commit 739de99f1a2b, modified, 2026-12-04T23:10:00Z, built 2026-12-05T06:00:00Z, go1.26.8)"},
		{"dev", "", bi, "mcpvec dev (commit 739de99f1a2b, modified, 2026-12-04T23:10:00Z, go1.26.8)"},
		{"dev", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.5.0"}}, "mcpvec v1.5.0"},
		{"dev", "", nil, "mcpvec dev"},
		{"dev", "2026-12-05T06:00:00Z", nil, "mcpvec dev (built 2026-12-05T06:00:00Z)"},
	} {
		if got := versionLine(tc.stamped, tc.built, tc.bi); got != tc.want {
			t.Errorf("versionLine(%q) = %q, want %q", tc.stamped, got, tc.want)
		}
	}
	// A -buildvcs=false build stamped by make release: the stamped commit and
	// date stand in; a recorded revision wins over them.
	noVCS := withStampedCommit(&debug.BuildInfo{GoVersion: "go1.26.8"}, "27c64df0123456789", "2026-12-05T05:59:00Z")
	if got, want := versionLine("v1.4.0", "2026-12-05T06:00:00Z", noVCS), "mcpvec v1.4.0 (commit 27c64df01234, 2026-12-05T05:59:00Z, built 2026-12-05T06:00:00Z, go1.26.8)"; got != want {
		t.Errorf("stamped commit: %q, want %q", got, want)
	}
	if got := withStampedCommit(bi, "other", ""); got != bi {
		t.Errorf("withStampedCommit replaced a recorded revision: %+v", got)
	}
	if got := withStampedCommit(nil, "", ""); got != nil {
		t.Errorf("withStampedCommit(nil, \"\") = %+v, want nil", got)
	}
}
