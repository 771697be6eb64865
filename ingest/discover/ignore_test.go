package discover

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRulesMatch(t *testing.T) {
	type probe struct {
		rel   string
		isDir bool
		want  bool
	}
	cases := []struct {
		name   string
		base   string
		text   string
		probes []probe
	}{
		{"name at any depth", "", "*.log", []probe{
			{"a.log", false, true}, {"x/y/a.log", false, true}, {"a.logs", false, false}, {"log", false, false}}},
		{"negation, last match wins", "", "*.md\n!keep.md", []probe{
			{"a.md", false, true}, {"keep.md", false, false}, {"d/keep.md", false, false}}},
		{"negation then re-ignore", "", "*.md\n!keep.md\nkeep.md", []probe{{"keep.md", false, true}}},
		{"dir only", "", "build/", []probe{
			{"build", true, true}, {"build", false, false}, {"src/build", true, true}}},
		{"anchored leading slash", "", "/todo.txt", []probe{
			{"todo.txt", false, true}, {"sub/todo.txt", false, false}}},
		{"anchored by middle slash", "", "doc/frotz", []probe{
			{"doc/frotz", false, true}, {"a/doc/frotz", false, false}}},
		{"leading double star", "", "**/foo", []probe{
			{"foo", false, true}, {"a/b/foo", false, true}, {"a/foox", false, false}}},
		{"trailing double star", "", "abc/**", []probe{
			{"abc/x", false, true}, {"abc/x/y", true, true}, {"abc", true, false}}},
		{"middle double star", "", "a/**/b", []probe{
			{"a/b", false, true}, {"a/x/b", false, true}, {"a/x/y/b", false, true}, {"b", false, false}}},
		{"question mark and class", "", "file?.[ch]", []probe{
			{"file1.c", false, true}, {"file1.h", false, true}, {"file12.c", false, false}, {"file1.o", false, false}}},
		{"star does not cross slash", "", "/a*b", []probe{{"axxb", false, true}, {"ax/xb", false, false}}},
		{"comments, blanks, escapes", "", "# comment\n\n\\#hash\n\\!bang\ntrailing   ", []probe{
			{"#hash", false, true}, {"!bang", false, true}, {"trailing", false, true}, {"# comment", false, false}}},
		{"based below a folder", "sub", "*.txt\n/top.md", []probe{
			{"sub/a.txt", false, true}, {"sub/x/a.txt", false, true}, {"a.txt", false, false},
			{"sub/top.md", false, true}, {"sub/x/top.md", false, false}, {"subway/a.txt", false, false}}},
		{"crlf lines", "", "*.bak\r\n", []probe{{"x.bak", false, true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseRules(c.base, []byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.probes {
				if got := r.Match(p.rel, p.isDir); got != p.want {
					t.Errorf("Match(%q, dir=%v) = %v, want %v", p.rel, p.isDir, got, p.want)
				}
			}
		})
	}
}

func TestRulesIgnoredLooksAtParents(t *testing.T) {
	r, _ := ParseRules("", []byte("secret/\n!secret/keep.md"))
	if !r.Ignored("secret/keep.md", false) {
		t.Error("a file in an ignored folder cannot be re-included")
	}
	if r.Ignored("public/keep.md", false) {
		t.Error("unrelated path ignored")
	}
	var nilRules *Rules
	if nilRules.Ignored("x", false) {
		t.Error("nil rules ignore")
	}
}

func TestParseRulesBadPattern(t *testing.T) {
	r, err := ParseRules("", []byte("[oops\n*.log"))
	if !errors.Is(err, ErrBadPattern) {
		t.Fatalf("err = %v, want ErrBadPattern", err)
	}
	if !r.Match("a.log", false) {
		t.Error("the good lines must still apply")
	}
}

func TestTemporary(t *testing.T) {
	for name, want := range map[string]bool{
		"report.pdf.crdownload": true, "movie.part": true, "~$report.docx": true, ".notes.md.swp": true,
		"x.tmp": true, "draft.md~": true, "#draft.md#": true, "report.pdf": false, "partial.md": false, "tmp.txt": false,
	} {
		if got := Temporary(name); got != want {
			t.Errorf("Temporary(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestWalkWithIgnoreRules(t *testing.T) {
	root := makeTree(t, map[string]string{
		".mcpvecignore":           "*.draft.md\nprivate/\n",
		"a.md":                    "a",
		"b.draft.md":              "b",
		"private/p.md":            "p",
		"sub/.mcpvecignore":       "!c.draft.md\nlocal.txt\n",
		"sub/c.draft.md":          "c",
		"sub/local.txt":           "l",
		"other/local.txt":         "o",
		"sub/~$lock.md":           "tmp",
		"sub/page.pdf.crdownload": "partial",
		"archive/old.md":          "old",
		".hidden/h.md":            "h",
	}, nil)
	var ignoreErrs []error
	files, skipped, errs := WalkWith(context.Background(), []string{root}, &Options{
		Exclude: []string{"archive/"}, IgnoreFiles: true, SkipTemporary: true,
		OnIgnoreError: func(err error) { ignoreErrs = append(ignoreErrs, err) },
	})
	if len(errs) != 0 || len(ignoreErrs) != 0 {
		t.Fatal(errs, ignoreErrs)
	}
	if diff := cmp.Diff([]string{"a.md", "other/local.txt", "sub/c.draft.md"}, rels(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		rel, _ := filepath.Rel(root, s.Path)
		reasons[filepath.ToSlash(rel)] = s.Reason
	}
	want := map[string]string{
		"archive": ReasonIgnored, "b.draft.md": ReasonIgnored, "private": ReasonIgnored,
		"sub/local.txt": ReasonIgnored, "sub/~$lock.md": ReasonTemporary, "sub/page.pdf.crdownload": ReasonTemporary,
	}
	if diff := cmp.Diff(want, reasons); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if _, _, errs := WalkWith(context.Background(), []string{root}, &Options{Exclude: []string{"[bad"}}); len(errs) != 1 || !errors.Is(errs[0], ErrBadPattern) {
		t.Errorf("bad exclude: %v", errs)
	}
}
