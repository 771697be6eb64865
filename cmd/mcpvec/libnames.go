package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpvec/mcpvec/server"
)

// libraryRef is one --library flag: NAME=PATH, or NAME alone (the library a
// running server serves under that name).
type libraryRef struct{ name, path string }

// libraryRefs is the repeatable --library flag.
type libraryRefs []libraryRef

func (l *libraryRefs) String() string {
	var parts []string
	for _, r := range *l {
		parts = append(parts, r.name+"="+r.path)
	}
	return strings.Join(parts, ",")
}

// Set parses NAME=PATH or NAME; the name must be one the server can serve
// under "/NAME/" (server.CheckLibraryName) and appear once.
func (l *libraryRefs) Set(v string) error {
	name, path, _ := strings.Cut(v, "=")
	if err := server.CheckLibraryName(name); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), server.ErrBadOption.Error()+": "))
	}
	if strings.Contains(path, "://") {
		return fmt.Errorf("library %q: --library takes a library file (a Weaviate collection is served alone, with --store)", name)
	}
	for _, r := range *l {
		if r.name == name {
			return fmt.Errorf("library %q given twice", name)
		}
	}
	*l = append(*l, libraryRef{name: name, path: path})
	return nil
}

// errLibraryFlags: --library names one library, or several for serve.
var errLibraryFlags = errors.New("--library names the library instead of --db or --store: give one of them")

// libraryPath is the file of the one --library of a command (other than
// a serve of several): its PATH, or the file a running server serves
// under its NAME.
func (f *libFlags) libraryPath(e *env) (string, error) {
	if f.db != "" || f.store != "" {
		return "", errLibraryFlags
	}
	if len(f.libs) > 1 {
		return "", errors.New("several --library: only `mcpvec serve` serves several libraries")
	}
	r := f.libs[0]
	if r.path != "" {
		return absPath(e, expandHome(e, r.path)), nil
	}
	p, err := lookupLibraryName(e, r.name)
	if err != nil {
		return "", fmt.Errorf("library %q: %w", r.name, err)
	}
	return p, nil
}

// expandHome replaces a leading "~/" with $HOME (the shell leaves the one
// in --library=NAME=~/x alone).
func expandHome(e *env, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && e.getenv("HOME") != "" {
		return filepath.Join(e.getenv("HOME"), rest)
	}
	return p
}

// libraryNameFile is where a running serve records the file it serves
// under name: beside the admin sockets, which are private to the user.
func libraryNameFile(e *env, name string) string {
	return filepath.Join(filepath.Dir(adminSocket(e, "/")), "mcpvec-library-"+name)
}

// errNoSuchName: no running server serves a library under the name.
var errNoSuchName = errors.New("no running `mcpvec serve --library NAME=PATH` serves a library of that name: give --library NAME=PATH or --db PATH")

// lookupLibraryName returns the file a running serve recorded for name.
// A record others could have written (not a regular file, or writable by
// group or others) is refused.
func lookupLibraryName(e *env, name string) (string, error) {
	file := libraryNameFile(e, name)
	fi, err := os.Lstat(file)
	if errors.Is(err, os.ErrNotExist) {
		return "", errNoSuchName
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("refusing %s: not a private file", file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// recordLibraryName records that this process serves the file path under
// name, for `--library NAME` of other commands, and returns what removes
// the record (unless another serve has replaced it since). A failure is
// logged: commands can still name the file.
func recordLibraryName(e *env, name, path string) (remove func()) {
	file := libraryNameFile(e, name)
	err := os.MkdirAll(filepath.Dir(file), 0o700)
	if err == nil {
		tmp := file + fmt.Sprintf(".%d", os.Getpid())
		if err = os.WriteFile(tmp, []byte(path+"\n"), 0o600); err == nil {
			err = os.Rename(tmp, file)
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "mcpvec: `--library %s` will not find this server: %v\n", name, err)
		return func() {}
	}
	return func() {
		if got, err := lookupLibraryName(e, name); err == nil && got == path {
			os.Remove(file)
		}
	}
}

// libName is the name of the one --library, or "".
func (f *libFlags) libName() string {
	if len(f.libs) == 1 {
		return f.libs[0].name
	}
	return ""
}
