package web

import (
	"net/http"
	"slices"

	"github.com/mcpvec/mcpvec/server/identity"
)

// may reports whether r's session may use right in this library: always
// on a page that needs no sign-in and for the owner; for a person whom the
// OpenID provider signed in, when Options.Policy allows it (asked on every
// request, so an edit of the rules takes effect at once); never for anyone
// else.
func (h *Handler) may(r *http.Request, right identity.Right) bool {
	s := sessionOf(r)
	switch {
	case !h.opts.Exposed || s.isOwner():
		return true
	case s.person.IsZero() || h.opts.Policy == nil:
		return false
	}
	return h.opts.Policy.Allows(s.person, h.opts.Name, right)
}

// canWrite reports whether r may add and remove documents here: the
// library takes writes and r's session holds the write right.
func (h *Handler) canWrite(r *http.Request) bool {
	return h.opts.Ingest != nil && h.may(r, identity.Write)
}

// need protects a page with right: a visitor who has not signed in is
// sent to the sign-in page (GET) or refused (POST); a signed-in person
// without the right gets a 403 page.
func (h *Handler) need(right identity.Right, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.may(r, right) {
			next(w, r)
			return
		}
		h.refusePage(w, r)
	}
}

// owner protects a page only the owner sees (the Connect page and its
// test, which uses the owner's token), as need does.
func (h *Handler) owner(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.opts.Exposed || sessionOf(r).isOwner() {
			next(w, r)
			return
		}
		h.refusePage(w, r)
	}
}

// signedIn protects what any signed-in session may do (sign out).
func (h *Handler) signedIn(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !h.opts.Exposed || sessionOf(r).signedIn() {
			next(w, r)
			return
		}
		h.refusePage(w, r)
	}
}

func (h *Handler) refusePage(w http.ResponseWriter, r *http.Request) {
	s := sessionOf(r)
	switch {
	case !s.person.IsZero():
		h.log.Warn("web: refused", "user", s.person.Label(), "library", h.opts.Name, "path", r.URL.Path)
		h.message(w, r, http.StatusForbidden, "Not allowed",
			"You are signed in as "+s.person.Label()+", who may not do this in this library. Ask the library's owner for access.")
	case r.Method != http.MethodGet:
		http.Error(w, "forbidden: sign in first", http.StatusForbidden)
	default:
		http.Redirect(w, r, h.opts.Base+"/ui/signin", http.StatusSeeOther)
	}
}

// mayPost decides, from the session alone, whether a POST to path may be
// read: the sign-in form by anyone, sign-out by any signed-in session,
// the connection test by the owner, and every other form (uploads,
// removals, syncs) with the write right.
func (h *Handler) mayPost(r *http.Request, s *session) bool {
	switch r.URL.Path {
	case "/ui/signin":
		return true
	case "/ui/signout":
		return !h.opts.Exposed || s.signedIn()
	case "/ui/connect/test":
		return !h.opts.Exposed || s.isOwner()
	}
	return h.may(r, identity.Write)
}

// visible is the library switcher for r's session: every library for
// the owner, those a person may read for a person.
func (h *Handler) visible(r *http.Request) []LibraryLink {
	s := sessionOf(r)
	if !h.opts.Exposed || s.isOwner() || len(h.opts.Libraries) < 2 {
		return h.opts.Libraries
	}
	return slices.DeleteFunc(slices.Clone(h.opts.Libraries), func(l LibraryLink) bool {
		return s.person.IsZero() || h.opts.Policy == nil || !h.opts.Policy.Allows(s.person, l.Name, identity.Read)
	})
}

func (h *Handler) readPage(next http.HandlerFunc) http.HandlerFunc {
	return h.need(identity.Read, next)
}

func (h *Handler) writePage(next http.HandlerFunc) http.HandlerFunc {
	return h.need(identity.Write, next)
}
