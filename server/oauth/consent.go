package oauth

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"time"
)

var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow {{.ClientName}} to read your mcpvec library?</title>
<style>body{font-family:system-ui,sans-serif;max-width:36em;margin:2em auto;padding:0 1em;line-height:1.45}
code{background:#eee;padding:.1em .3em;font-size:1.1em}.err{color:#a00;font-weight:bold}button{font-size:1em;margin:.3em .3em 0 0}</style>
</head><body>
<h1>Allow <q>{{.ClientName}}</q> to read your library?</h1>
<p><b>{{.ClientName}}</b> ({{.ClientID}}) asks to <b>search and read every document</b> in this mcpvec library
({{.Resource}}). It cannot change or delete anything.</p>
<p>After you approve, your browser goes back to <b>{{.RedirectHost}}</b>.</p>
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
<form method="post" action="{{.Action}}">
<input type="hidden" name="request" value="{{.RequestID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<p><label>Owner passphrase: <input type="password" name="passphrase" autocomplete="current-password" autofocus></label></p>
<p><button name="action" value="approve">Approve</button><button name="action" value="deny">Deny</button></p>
<p>Or, on the machine running mcpvec, run <code>{{.Command}} {{.ApproveCode}}</code> and then
<button name="action" value="continue">Continue</button></p>
</form>
<p><small>This request expires at {{.Expires}}.</small></p>
</body></html>
`))

var errorPageTmpl = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcpvec sign-in</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36em;margin:2em auto"><h1>Sign-in refused</h1><p>{{.}}</p></body></html>
`))

func (s *Server) renderConsent(w http.ResponseWriter, status int, p *pending, csrf, problem string) {
	host := p.RedirectURI
	if u, err := url.Parse(p.RedirectURI); err == nil {
		host = u.Host
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	err := consentPage.Execute(w, map[string]any{
		"ClientName": p.ClientName, "ClientID": p.ClientID, "Resource": p.Resource, "RedirectHost": host,
		"Error": problem, "Action": s.cfg.Issuer + pathConsent, "RequestID": p.ID, "CSRF": csrf,
		"Command": s.cfg.ApproveCommand, "ApproveCode": p.ApproveCode,
		"Expires": p.Expires.UTC().Format(time.TimeOnly + " MST"),
	})
	if err != nil {
		s.log.Warn("oauth: render consent page", "err", err)
	}
}

func (s *Server) errorPage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	errorPageTmpl.Execute(w, msg)
}

// serveConsent takes the consent form: approve (with the passphrase), deny,
// or continue (after `mcpvec auth approve`). The form must carry the CSRF
// token that matches both the consent cookie and the stored request.
func (s *Server) serveConsent(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.errorPage(w, http.StatusMethodNotAllowed, "Use the consent form.")
		return
	}
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, http.StatusBadRequest, "The consent form is malformed.")
		return
	}
	p, csrf, err := s.loadPending(r)
	if err != nil {
		s.log.Warn("oauth: consent refused", "remote", remoteHost(r), "err", err)
		s.errorPage(w, http.StatusForbidden, "This consent form is not valid (expired, already used, or not from this browser). Start the sign-in again from your application.")
		return
	}
	switch r.PostForm.Get("action") {
	case "deny":
		s.deletePending(p.ID)
		s.redirectError(w, r, p.RedirectURI, p.State, "access_denied", "the owner denied access")
	case "continue":
		if !p.Approved {
			s.renderConsent(w, http.StatusOK, p, csrf, fmt.Sprintf("Not approved yet: run %s %s first.", s.cfg.ApproveCommand, p.ApproveCode))
			return
		}
		s.finishConsent(w, r, p)
	case "approve":
		if msg, status := s.checkOwner(r, r.PostForm.Get("passphrase")); msg != "" {
			s.renderConsent(w, status, p, csrf, msg)
			return
		}
		s.finishConsent(w, r, p)
	default:
		s.renderConsent(w, http.StatusBadRequest, p, csrf, "Choose Approve, Deny or Continue.")
	}
}

var errBadConsent = errors.New("consent request unknown, expired or forged")

// loadPending returns the consent request of the form after checking its
// CSRF token against the cookie and the stored hash.
func (s *Server) loadPending(r *http.Request) (*pending, string, error) {
	id, csrf := r.PostForm.Get("request"), r.PostForm.Get("csrf")
	if len(id) < 12 || csrf == "" {
		return nil, "", fmt.Errorf("%w: no request or csrf token", errBadConsent)
	}
	ck, err := r.Cookie(s.consentCookieName(id))
	if err != nil || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(csrf)) != 1 {
		return nil, "", fmt.Errorf("%w: csrf token does not match the cookie", errBadConsent)
	}
	var p pending
	found, err := s.load(kindPending, id, &p)
	if err != nil {
		return nil, "", err
	}
	if !found || s.now().After(p.Expires) {
		return nil, "", fmt.Errorf("%w: no such request", errBadConsent)
	}
	if subtle.ConstantTimeCompare([]byte(hashToken(csrf)), []byte(p.CSRFHash)) != 1 {
		return nil, "", fmt.Errorf("%w: csrf token does not match the request", errBadConsent)
	}
	return &p, csrf, nil
}

func (s *Server) deletePending(id string) {
	if err := s.update(func(tx Tx) error { return tx.Delete(kindPending, id) }); err != nil {
		s.log.Warn("oauth: delete consent request", "err", err)
	}
}

// finishConsent turns an approved request into a single-use code and sends
// the browser back to the client with code, state and iss.
func (s *Server) finishConsent(w http.ResponseWriter, r *http.Request, p *pending) {
	code, err := randomToken("mcpvec_code_")
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "The server could not issue a code.")
		return
	}
	rec := codeRecord{ClientID: p.ClientID, ClientName: p.ClientName, RedirectURI: p.RedirectURI,
		Challenge: p.Challenge, Resource: p.Resource, Expires: s.now().Add(s.cfg.CodeTTL)}
	err = s.update(func(tx Tx) error {
		if tx.Get(kindPending, p.ID) == nil {
			return errBadConsent // used by a concurrent submit
		}
		if err := tx.Delete(kindPending, p.ID); err != nil {
			return err
		}
		return putJSON(tx, kindCode, hashToken(code), &rec)
	})
	if err != nil {
		s.log.Warn("oauth: issue code", "err", err)
		s.errorPage(w, http.StatusConflict, "This request was already answered. Start the sign-in again from your application.")
		return
	}
	s.log.Info("oauth: owner approved", "client", p.ClientID, "name", p.ClientName, "redirect_uri", p.RedirectURI)
	s.redirect(w, r, p.RedirectURI, url.Values{"code": {code}}, p.State)
}

func remoteHost(r *http.Request) string {
	if f := r.Header.Get("X-Forwarded-For"); f != "" {
		return f
	}
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	return host
}
