package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// runVersion is `mcpvec version` and `mcpvec --version`.
func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("version", "", e)
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, versionLine(Version, BuildDate, withStampedCommit(bi, Commit, CommitDate)))
	return nil
}

// BuildDate, Commit and CommitDate are stamped by `make build` and `make
// release` (-ldflags "-X main.BuildDate=2026-12-05T06:00:00Z ..."); "" when
// unstamped. Commit and CommitDate stand in for the VCS settings the go
// command records, which builds with -buildvcs=false lack.
var BuildDate, Commit, CommitDate = "", "", ""

// withStampedCommit returns bi with vcs.revision and vcs.time set from the
// stamped commit and date when bi records no revision of its own.
func withStampedCommit(bi *debug.BuildInfo, commit, date string) *debug.BuildInfo {
	if commit == "" {
		return bi
	}
	out := debug.BuildInfo{}
	if bi != nil {
		out = *bi
	}
	for _, s := range out.Settings {
		if s.Key == "vcs.revision" {
			return bi
		}
	}
	out.Settings = append(slices.Clone(out.Settings), debug.BuildSetting{Key: "vcs.revision", Value: commit})
	if date != "" {
		out.Settings = append(out.Settings, debug.BuildSetting{Key: "vcs.time", Value: date})
	}
	return &out
}

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
