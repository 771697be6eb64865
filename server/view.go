package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpvec/mcpvec/library"
)

// viewName is the last segment of a document link that serves the text
// view instead of the original file.
const viewName = "view"

// viewCSS is the web interface's stylesheet, so the view looks like its
// document page. It is inlined and allowed by its hash: the view needs no
// other route and works without the web interface (--no-web).
//
//go:embed web/static/style.css
var viewCSS string

// viewCSP allows nothing but the inline stylesheet: no script, no images,
// no forms, no framing. The extracted text is hostile input.
var viewCSP = func() string {
	sum := sha256.Sum256([]byte(viewCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

var viewTemplate = template.Must(template.New("view").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<main id="main">
<h1>{{.Title}}</h1>
<p class="meta">The text mcpvec extracted from {{.Name}}. <a href="{{.Original}}">Download the original file</a></p>
{{range .Units}}<section class="page" id="{{.Anchor}}">
{{with .Heading}}<h2>{{.}}</h2>
{{end}}<div class="text">{{range .Parts}}{{with .Anchor}}<span id="{{.}}"></span>{{end}}{{.Text}}{{end}}</div>
</section>
{{end}}</main>
</body>
</html>
`))

type viewData struct {
	*library.View
	CSS      template.CSS
	Original string
}

// viewLink returns base followed by the signed path of a document's text
// view, "/docs/<docID>/<signature>/view", with "#anchor" when anchor is
// set, made at once as docLink's.
func (s *Server) viewLink(base, docID, anchor string) string {
	hash := ""
	if anchor != "" {
		hash = "#"
	}
	return base + s.mount + "/docs/" + url.PathEscape(docID) + "/" + s.signature(docID) + "/" + viewName + hash + anchor
}

// serveView answers a signed /docs/<docID>/<sig>/view with the document's
// extracted text as HTML, unit by unit, each unit and passage with its
// fragment id, and a link to the original file.
func (s *Server) serveView(w http.ResponseWriter, r *http.Request, docID string) {
	v, err := s.lib.View(r.Context(), docID)
	if s.docError(w, r, "read document view", docID, err) {
		return
	}
	if v.Title == "" {
		v.Title = v.Name
	}
	var buf bytes.Buffer
	data := viewData{View: v, CSS: template.CSS(viewCSS), Original: s.docLink(s.publicBase(r), docID, 0)}
	if err := viewTemplate.Execute(&buf, data); err != nil {
		s.log.Error("render document view", "doc", docID, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", viewCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "private, max-age=300")
	http.ServeContent(s.withWriteDeadline(w, nil), r, "", time.Time{}, bytes.NewReader(buf.Bytes()))
}
