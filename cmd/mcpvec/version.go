package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// runVersion is `mcpvec version` and `mcpvec --version`.
func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("version", "", e)
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(Version, BuildDate, bi))
	return nil
}

// BuildDate is stamped by `make build` and `make release`
// (-ldflags "-X main.BuildDate=2026-12-05T06:00:00Z"); "" when unstamped.
var BuildDate = ""

// versionLine is "mcpvec VERSION (commit C, DATE, built B, GO)": VERSION is
// the Makefile's stamp (-X main.Version), else the module version `go
// install` recorded; the commit (with ", modified" for a dirty tree) and its
// date come from the VCS settings the go command records in the binary;
// built is the stamped build date. bi may be nil; what is unknown is left out.
func versionLine(stamped, built string, bi *debug.BuildInfo) string {
	v := stamped
	var details []string
	if bi != nil {
		if mv := bi.Main.Version; (v == "" || v == "dev") && mv != "" && mv != "(devel)" {
			v = mv
		}
		set := map[string]string{}
		for _, s := range bi.Settings {
			set[s.Key] = s.Value
		}
		if rev := set["vcs.revision"]; rev != "" {
			c := "commit " + rev[:min(len(rev), 12)]
			if set["vcs.modified"] == "true" {
				c += ", modified"
			}
			details = append(details, c)
		}
		if t := set["vcs.time"]; t != "" {
			details = append(details, t)
		}
	}
	if built != "" {
		details = append(details, "built "+built)
	}
	if bi != nil && bi.GoVersion != "" {
		details = append(details, bi.GoVersion)
	}
	if v == "" {
		v = "dev"
	}
	if len(details) == 0 {
		return "mcpvec " + v
	}
	return "mcpvec " + v + " (" + strings.Join(details, ", ") + ")"
}
