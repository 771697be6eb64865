package server

import (
	"fmt"
	"net/http"
	"regexp"
)

// libraryNameRE is what a library's name (its Mount without the slash) may
// be: a path segment that needs no escaping.
var libraryNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$`)

// reservedNames are the first path segments the server itself uses.
var reservedNames = map[string]bool{"ui": true, "docs": true, "oauth": true, "mcp": true, "sse": true, "message": true, "healthz": true}

// CheckLibraryName reports whether name may be a library's name, served
// under "/" + name (Options.Mount): a letter or digit, then up to 62
// letters, digits, - or _, and none of the server's own first path
// segments. The error wraps ErrBadOption. It is safe for concurrent use.
func CheckLibraryName(name string) error {
	if !libraryNameRE.MatchString(name) || reservedNames[name] {
		return fmt.Errorf("%w: library name %q: use letters, digits, - and _ (not ui, docs, oauth, mcp, sse, message or healthz)", ErrBadOption, name)
	}
	return nil
}

// parseMount checks Options.Mount and records it.
func (s *Server) parseMount() error {
	m := s.opts.Mount
	if m == "" {
		return nil
	}
	if m[0] != '/' {
		return fmt.Errorf("%w: mount %q must start with /", ErrBadOption, m)
	}
	if err := CheckLibraryName(m[1:]); err != nil {
		return err
	}
	s.mount = m
	return nil
}

// Mount returns Options.Mount: "" or where this server's routes live.
func (s *Server) Mount() string { return s.mount }

// mountWeb serves Options.Web, when set, at "/" and under "/ui/", or
// under Mount with Mount stripped (the handler adds it to its links); its
// static files stay at "/ui/static/", shared by every library's pages, and
// so does the return from the OpenID provider (web.CallbackPath: one
// redirect URI for every library; a Group sends it to its lead).
func (s *Server) mountWeb(root *http.ServeMux) {
	w := s.opts.Web
	if w == nil {
		return
	}
	if s.mount == "" {
		root.Handle("/{$}", w)
		root.Handle("/ui/", w)
		return
	}
	strip := http.StripPrefix(s.mount, w)
	root.Handle(s.mount+"/{$}", strip)
	root.Handle(s.mount+"/ui/", strip)
	root.Handle("/ui/static/", w)
	root.Handle("/ui/signin/callback", w)
	root.Handle("GET "+s.mount, http.RedirectHandler(s.mount+"/", http.StatusSeeOther))
}
