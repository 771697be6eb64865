package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/mcpvec/mcpvec/library"
)

// signature returns the unguessable part of a document link: the first 16
// bytes of HMAC-SHA256(LinkKey, "mcpvec/docs\x00"+docID), base64url. A link
// therefore opens exactly one document and cannot be derived for another.
// Signatures of the documents results cite are cached (sigCache).
func (s *Server) signature(docID string) string {
	return s.sigs.get(docID, s.sign)
}

// sign computes a signature without the cache.
func (s *Server) sign(docID string) string {
	m := hmac.New(sha256.New, s.opts.LinkKey)
	m.Write([]byte("mcpvec/docs\x00"))
	m.Write([]byte(docID))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// docLink returns base followed by the signed path of a document's
// original file, "<mount>/docs/<docID>/<signature>", with "#page=N" appended when
// page > 0: one string, made at once (a search makes ten).
func (s *Server) docLink(base, docID string, page int) string {
	if page <= 0 {
		return base + s.mount + "/docs/" + url.PathEscape(docID) + "/" + s.signature(docID)
	}
	return base + s.mount + "/docs/" + url.PathEscape(docID) + "/" + s.signature(docID) + "#page=" + strconv.Itoa(page)
}

// serveDoc answers GET/HEAD /docs/<docID>/<sig>[/<name>] with the original
// file of that one document, streamed, with Range and conditional requests,
// and /docs/<docID>/<sig>/view with its text view (serveView). A bad
// signature, an unknown document or any other path is a 404, so the route
// reveals nothing without a valid link.
func (s *Server) serveDoc(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	docID, name, ok := s.verifyDocPath(r.URL.EscapedPath())
	if !ok {
		http.NotFound(w, r)
		return
	}
	if name == viewName {
		s.serveView(w, r, docID)
		return
	}
	orig, err := s.lib.Original(r.Context(), docID)
	if s.docError(w, r, "read original", docID, err) {
		return
	}
	if c, ok := orig.Content.(io.Closer); ok {
		defer c.Close()
	}
	h := w.Header()
	h.Set("Content-Type", contentType(orig.MediaType))
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": path.Base(orig.Name)}))
	h.Set("X-Content-Type-Options", "nosniff")
	if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "application/pdf") {
		// An HTML or SVG original must not run script on this origin;
		// Chrome's PDF viewer refuses sandboxed documents, so PDFs are exempt.
		h.Set("Content-Security-Policy", "sandbox")
	}
	h.Set("Cache-Control", "private, max-age=300")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("ETag", fmt.Sprintf(`"%s-%x-%x"`, s.signature(docID)[:8], orig.ModTime.UnixNano(), orig.Size))
	// ServeContent streams the original piece by piece (Range, HEAD,
	// conditional requests); a reader that stops reading is cut off by the
	// write deadline, so no download pins memory or a goroutine for long.
	http.ServeContent(s.withWriteDeadline(w, nil), r, "", orig.ModTime, orig.Content)
}

// docError answers a failed read of document docID, if err is one: 404
// for an unknown document, else 500 with the cause logged as what. It
// reports whether it answered.
func (s *Server) docError(w http.ResponseWriter, r *http.Request, what, docID string, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, library.ErrNotFound):
		http.NotFound(w, r)
	default:
		s.log.Error(what, "doc", docID, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
	return true
}

// verifyDocPath checks an escaped /docs/ path and returns its document id
// and its third segment ("" when absent).
func (s *Server) verifyDocPath(escaped string) (docID, name string, ok bool) {
	rest, ok := strings.CutPrefix(escaped, s.mount+"/docs/")
	if !ok {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return "", "", false
	}
	docID, err := url.PathUnescape(parts[0])
	if err != nil || docID == "" {
		return "", "", false
	}
	want := s.sign(docID) // not cached: any id can be asked for
	if !hmac.Equal([]byte(parts[1]), []byte(want)) {
		return "", "", false
	}
	if len(parts) == 3 {
		name = parts[2]
	}
	return docID, name, true
}

// contentType returns mediaType, defaulting to a safe binary type, with a
// UTF-8 charset for text types that lack one.
func contentType(mediaType string) string {
	mt, params, err := mime.ParseMediaType(mediaType)
	if err != nil || mt == "" {
		return "application/octet-stream"
	}
	if strings.HasPrefix(mt, "text/") && params["charset"] == "" {
		if params == nil {
			params = map[string]string{}
		}
		params["charset"] = "utf-8"
	}
	return mime.FormatMediaType(mt, params)
}
