package oidctest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
)

// maxHops bounds the redirects one sign-in follows.
const maxHops = 20

// loginIDRE finds the auth request id in the provider's login form.
var loginIDRE = regexp.MustCompile(`name="id" value="([^"]*)"`)

// ErrLogin means the provider did not accept the username and password.
var ErrLogin = errors.New("provider refused the sign-in")

// SignIn does what a person's browser does from start (say, mcpvec's
// /oauth/authorize): it follows redirects with c's cookie jar, fills the
// provider's login form with username and password when it arrives there,
// and returns the first answer that is neither a redirect nor the login
// form (mcpvec's consent page, for one), with its body open for the caller
// to read and close. c's own redirect policy is not used; its Jar and
// Transport are. Errors wrap ErrLogin when the password is refused.
func (p *Provider) SignIn(ctx context.Context, c *http.Client, start, username, password string) (*http.Response, error) {
	return p.walk(ctx, c, start, username, password, func(*url.URL) bool { return false })
}

// Authorize signs username in at authURL (the provider's authorization
// endpoint with a relying party's query) in a fresh browser and returns the
// URL the provider then sends the browser to, off the provider: the
// relying party's redirect URI with its code and state (or error). It does
// not request that URL.
func (p *Provider) Authorize(ctx context.Context, authURL, username, password string) (*url.URL, error) {
	jar, _ := cookiejar.New(nil)
	var last *url.URL
	issuer, _ := url.Parse(p.Issuer)
	resp, err := p.walk(ctx, &http.Client{Jar: jar}, authURL, username, password, func(u *url.URL) bool {
		last = u
		return u.Host != issuer.Host
	})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if last == nil || last.Host == issuer.Host {
		return nil, fmt.Errorf("provider answered %s without sending the browser back", resp.Status)
	}
	return last, nil
}

// walk follows the browser's way from start, filling the login form, until
// a page that is not the login form, or a redirect to a URL stop accepts
// (whose response it then returns unread).
func (p *Provider) walk(ctx context.Context, c *http.Client, start, username, password string, stop func(*url.URL) bool) (*http.Response, error) {
	browser := &http.Client{Jar: c.Jar, Transport: c.Transport, Timeout: c.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, start, nil)
	if err != nil {
		return nil, fmt.Errorf("sign-in: %w", err)
	}
	loggedIn := false
	for hop := 0; hop < maxHops; hop++ {
		resp, err := browser.Do(req)
		if err != nil {
			return nil, fmt.Errorf("sign-in: %w", err)
		}
		if loc, lerr := resp.Location(); lerr == nil && resp.StatusCode/100 == 3 {
			resp.Body.Close()
			if stop(loc) {
				return resp, nil
			}
			req, _ = http.NewRequestWithContext(ctx, http.MethodGet, loc.String(), nil)
			continue
		}
		if !p.isLoginPage(resp) {
			return resp, nil
		}
		if loggedIn {
			resp.Body.Close()
			return nil, fmt.Errorf("%w: user %q", ErrLogin, username)
		}
		if req, err = p.loginRequest(ctx, resp, username, password); err != nil {
			return nil, err
		}
		loggedIn = true
	}
	return nil, fmt.Errorf("sign-in: more than %d redirects", maxHops)
}

// isLoginPage reports whether resp is the provider's login form.
func (p *Provider) isLoginPage(resp *http.Response) bool {
	u := resp.Request.URL
	return resp.StatusCode == http.StatusOK && strings.HasPrefix(u.Scheme+"://"+u.Host+"/", p.Issuer) &&
		u.Path == "/login/username"
}

// loginRequest reads the login form in resp (closing it) and returns the
// POST that submits it.
func (p *Provider) loginRequest(ctx context.Context, resp *http.Response, username, password string) (*http.Request, error) {
	page, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("sign-in: read login page: %w", err)
	}
	m := loginIDRE.FindSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("sign-in: no request id in the login page")
	}
	form := url.Values{"id": {string(m[1])}, "username": {username}, "password": {password}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"login/username", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("sign-in: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req, nil
}
