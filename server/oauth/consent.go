package oauth

import (
	"crypto/sha256"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

// consentCSS is the consent and error pages' stylesheet: the web
// interface's look (colours, type, cards, dark mode) without importing it.
// It is inlined, and allowed by its hash, so the pages need no second
// request and no 'unsafe-inline'.
//
//go:embed consent.css
var consentCSS string

// styleHash is the CSP source of consentCSS.
var styleHash = func() string {
	sum := sha256.Sum256([]byte(consentCSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

const pageHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
`

var consentPage = template.Must(template.New("consent").Parse(pageHead + `<title>Allow {{.ClientName}} to read {{if .Person}}{{.Resource}} as {{.Person}}{{else}}your library{{end}}? · mcpvec</title>
<style>` + consentCSS + `</style>
</head><body>
<header><span class="brand">mcpvec</span></header>
<main>
{{if .Person}}<h1>Allow <q>{{.ClientName}}</q> to read {{.Resource}} as {{.Person}}?</h1>
{{else}}<h1>Allow <q>{{.ClientName}}</q> to read your library?</h1>{{end}}
<div class="card">
<p><b>{{.ClientName}}</b> <span class="meta">({{.ClientID}})</span> asks to <b>search and read every document</b> in
this mcpvec library <span class="meta">({{.Resource}})</span>. It cannot change or delete anything.</p>
<p>After you approve, your browser goes back to <b>{{.RedirectHost}}</b>.</p>
</div>
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="{{.Action}}" class="card">
<input type="hidden" name="request" value="{{.RequestID}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
{{if .Person}}<p>Signed in as <b>{{.Person}}</b>{{if .PersonName}} ({{.PersonName}}){{end}}.</p>
<div class="actions"><button name="action" value="approve">Allow</button><button name="action" value="deny" class="deny">Deny</button></div>
{{else}}<label for="passphrase">Owner passphrase</label>
<input id="passphrase" type="password" name="passphrase" autocomplete="current-password" autofocus>
<div class="actions"><button name="action" value="approve">Approve</button><button name="action" value="deny" class="deny">Deny</button></div>
<h2>Or approve on the machine running mcpvec</h2>
<p>Run <code>{{.Command}} {{.ApproveCode}}</code> there, then press Continue.</p>
<div class="actions"><button name="action" value="continue" class="secondary">Continue</button></div>
{{end}}</form>
<p class="meta">This request expires at {{.Expires}}.</p>
</main>
</body></html>
`))

var errorPageTmpl = template.Must(template.New("error").Parse(pageHead + `<title>Sign-in refused · mcpvec</title>
<style>` + consentCSS + `</style>
</head><body>
<header><span class="brand">mcpvec</span></header>
<main><h1>Sign-in refused</h1><p class="card">{{.}}</p></main>
</body></html>
`))

// redirectOriginRE matches the origins that may appear in a CSP source
// list: a registered redirect URI is https (or http on loopback) with a
// host, but nothing else is let into the header.
var redirectOriginRE = regexp.MustCompile(`^https?://[A-Za-z0-9.:\[\]-]+$`)

// schemeRE is a URI scheme that may stand in a CSP source list as it is.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// pageCSP is the Content-Security-Policy of the sign-in pages: no script,
// only the inlined stylesheet, not framed, and forms posted only here.
// CSP level 3 applies form-action to the redirects that follow a form
// submission too (Chromium enforces it), so the consent page also allows
// the origin of its own request's registered redirect URI: without it the
// 302 back to the client after Approve, Deny or Continue is blocked. Only
// that one origin is added (paths are not matched after a redirect, so a
// path would add nothing), and only when it is a plain origin.
func pageCSP(redirectURI string) string {
	action := "'none'"
	if redirectURI != "" {
		action = "'self'"
		if u, err := url.Parse(redirectURI); err == nil {
			if o := u.Scheme + "://" + u.Host; redirectOriginRE.MatchString(o) {
				action += " " + o
			} else if privateUseScheme(u.Scheme) && schemeRE.MatchString(u.Scheme) {
				action += " " + u.Scheme + ":" // a native app's own scheme
			}
		}
	}
	return "default-src 'none'; style-src " + styleHash + "; form-action " + action +
		"; frame-ancestors 'none'; base-uri 'none'"
}

func pageHeaders(w http.ResponseWriter, redirectURI string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", pageCSP(redirectURI))
}

func (s *Server) renderConsent(w http.ResponseWriter, status int, p *pending, csrf, problem string) {
	host := p.RedirectURI
	if u, err := url.Parse(p.RedirectURI); err == nil {
		host = u.Host
	}
	person, personName := "", ""
	if p.Person != nil {
		person, personName = p.Person.Label(), p.Person.Name
	}
	pageHeaders(w, p.RedirectURI)
	w.WriteHeader(status)
	err := consentPage.Execute(w, map[string]any{
		"ClientName": p.ClientName, "ClientID": p.ClientID, "Resource": p.Resource, "RedirectHost": host,
		"Error": problem, "Action": s.cfg.Issuer + pathConsent, "RequestID": p.ID, "CSRF": csrf,
		"Command": s.cfg.ApproveCommand, "ApproveCode": p.ApproveCode,
		"Expires": p.Expires.UTC().Format(time.TimeOnly + " MST"), "Person": person, "PersonName": personName,
	})
	if err != nil {
		s.log.Warn("oauth: render consent page", "err", err)
	}
}

func (s *Server) errorPage(w http.ResponseWriter, status int, msg string) {
	pageHeaders(w, "")
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
		s.log.Warn("oauth: consent refused", "remote", s.remoteHost(r), "err", err)
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
		if msg, status := s.checkApprover(r, p); msg != "" {
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
		Challenge: p.Challenge, Resource: p.Resource, Expires: s.now().Add(s.cfg.CodeTTL), Person: p.Person}
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
	who := "owner"
	if p.Person != nil {
		who = p.Person.Label()
	}
	s.log.Info("oauth: approved", "by", who, "client", p.ClientID, "name", p.ClientName, "redirect_uri", p.RedirectURI)
	s.redirect(w, r, p.RedirectURI, url.Values{"code": {code}}, p.State)
}

// peerAddr is the IP address of the connection's peer (a proxy's, behind
// one).
func peerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// remoteHost describes a request's origin for the log: the client address,
// and any X-Forwarded-For, which is logged as what it claims, not trusted.
func (s *Server) remoteHost(r *http.Request) string {
	a := s.cfg.ClientAddr(r)
	if f := r.Header.Get("X-Forwarded-For"); f != "" {
		a += " (forwarded for " + f + ")"
	}
	return a
}
