package oauth

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestAuthApplicationType is issue 39 item 5: registration honours
// application_type (web: https only; native: loopback http, https or the
// app's own reverse-domain scheme), infers it when absent so clients
// predating the field keep registering, returns it, and refuses the rest.
func TestAuthApplicationType(t *testing.T) {
	e := newTestEnv(t, nil, nil)
	for _, c := range []struct {
		appType  string
		redirect string
		want     string // application_type returned, or the error code
	}{
		{"native", "http://127.0.0.1:33418/callback", "native"},
		{"native", "http://[::1]:8/cb", "native"},
		{"native", "com.example.notes:/oauth/callback", "native"},
		{"native", "https://app.example/cb", "native"},
		{"", "http://localhost:6274/oauth/callback", "native"},
		{"", "com.example.notes:/cb", "native"},
		{"", "https://chatgpt.com/connector_platform_oauth_redirect", "web"},
		{"web", "https://claude.ai/api/mcp/auth_callback", "web"},
		{"web", "http://127.0.0.1:33418/callback", "invalid_redirect_uri"},
		{"web", "com.example.notes:/cb", "invalid_redirect_uri"},
		{"native", "http://app.example/cb", "invalid_redirect_uri"},
		{"native", "myapp:/cb", "invalid_redirect_uri"},
		{"native", "javascript:alert(1)", "invalid_redirect_uri"},
		{"native", "com.example.notes://host/cb", "invalid_redirect_uri"},
		{"desktop", "http://127.0.0.1:1/cb", "invalid_client_metadata"},
	} {
		status, out := registerJSON(t, e, map[string]any{"client_name": "T", "application_type": c.appType, "redirect_uris": []string{c.redirect}})
		if strings.HasPrefix(c.want, "invalid_") {
			if status != http.StatusBadRequest || out["error"] != c.want {
				t.Errorf("%q %s: %d %v, want 400 %s", c.appType, c.redirect, status, out, c.want)
			}
			continue
		}
		if status != http.StatusCreated || out["application_type"] != c.want {
			t.Errorf("%q %s: %d %v, want 201 application_type %s", c.appType, c.redirect, status, out, c.want)
			continue
		}
		cl, err := e.srv.lookupClient(t.Context(), out["client_id"].(string))
		if err != nil || cl.ApplicationType != c.want {
			t.Errorf("%q %s: stored client %+v, %v; want application_type %s", c.appType, c.redirect, cl, err, c.want)
		}
	}
}

// TestAuthConsentCSPNativeScheme: the consent page lets its form's redirect
// go to a native app's own scheme, and to nothing else.
func TestAuthConsentCSPNativeScheme(t *testing.T) {
	if got := pageCSP("com.example.notes:/cb"); !strings.Contains(got, "form-action 'self' com.example.notes:;") {
		t.Errorf("CSP for a native scheme redirect: %s", got)
	}
	if got := pageCSP("myapp:/cb"); !strings.Contains(got, "form-action 'self';") {
		t.Errorf("CSP for a scheme that is not private-use: %s", got)
	}
}

func registerJSON(t *testing.T, e *testEnv, meta map[string]any) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(meta)
	resp, err := http.Post(e.url(pathRegister), "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}
