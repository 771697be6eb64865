package web

import (
	"net/http"
	"time"
)

// formLimit caps the body of every POST but an upload (forms of a few
// fields).
const formLimit = 64 << 10

// admit decides, from the headers and the cookie alone, whether a POST's
// body may be read at all (mayPost): when sign-in is required, only the
// sign-in form is read from a visitor who has not signed in, and no
// upload or removal from a person without the write right; a form body is capped at
// formLimit and its CSRF token checked here; an upload is capped at
// MaxUpload and checks its CSRF token itself, before any file (upload).
// A refused request's body is left unread and its connection closed. It
// reports whether the request goes on.
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, sess *session) bool {
	if !h.mayPost(r, sess) {
		return refuse(w, http.StatusForbidden, "forbidden: sign in first, with the right to do this")
	}
	limit := int64(formLimit)
	if r.URL.Path == "/ui/upload" {
		limit = h.opts.MaxUpload
	}
	if r.ContentLength > limit {
		return refuse(w, http.StatusRequestEntityTooLarge, "request body too large")
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if r.URL.Path == "/ui/upload" {
		return true
	}
	if !sess.validCSRF(r.PostFormValue("csrf")) {
		h.log.Warn("web: post without a valid csrf token", "path", r.URL.Path)
		return refuse(w, http.StatusForbidden, "forbidden: missing or wrong CSRF token (reload the page)")
	}
	bodyRead(w)
	return true
}

// bodyRead lifts the read deadline once a body is read in full.
func bodyRead(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// refuse answers status with msg and ends the connection, the rest of the
// body unread (its read deadline set to now, so net/http does not wait to
// drain it), reporting false.
func refuse(w http.ResponseWriter, status int, msg string) bool {
	w.Header().Set("Connection", "close")
	http.NewResponseController(w).SetReadDeadline(time.Now())
	http.Error(w, msg, status)
	return false
}
