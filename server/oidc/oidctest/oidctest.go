// Package oidctest runs a real OpenID provider on this machine for tests:
// the example provider of github.com/zitadel/oidc (see Install), started
// as a child process on a free loopback port with the users a test names.
// It is a real implementation of the protocol (discovery, JWKS, code flow
// with PKCE, ID tokens signed with a key made at start), not a mock.
//
// A test that needs it calls Start, which skips the test when the binary
// is not installed, or fails it under MCPVEC_OIDC_TESTS=required.
// A Provider is safe for concurrent use once started.
package oidctest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Install is the command that installs the provider these tests expect,
// as oidc-example-provider (rename the installed "server" binary).
const Install = "GOBIN=DIR go install github.com/zitadel/oidc/v3/example/server@v3.52.0 && mv DIR/server DIR/oidc-example-provider"

// binaryName is the name Binary looks for.
const binaryName = "oidc-example-provider"

// Client credentials the example provider registers for a web application
// (client_secret_basic, code flow with PKCE and refresh tokens). It also
// registers "api" with the same secret: a second audience for tests.
const (
	ClientID     = "web"
	ClientSecret = "secret"
	OtherClient  = "api"
)

// User is one account at the provider. ID becomes the ID token's "sub".
type User struct {
	ID, Username, Password string
	FirstName, LastName    string
	Email                  string
	EmailVerified          bool
}

// Ann and Bob are two ready-made users in different e-mail domains.
var (
	Ann = User{ID: "ann-1", Username: "ann", Password: "ann-pass", FirstName: "Ann", LastName: "Lee",
		Email: "ann@example.com", EmailVerified: true}
	Bob = User{ID: "bob-2", Username: "bob", Password: "bob-pass", FirstName: "Bob", LastName: "Ray",
		Email: "bob@other.example", EmailVerified: true}
)

// Provider is a running example provider.
type Provider struct {
	// Issuer is the provider's issuer, "http://localhost:PORT/" (with the
	// trailing slash, exactly as its discovery document says).
	Issuer string
	// ClientID and ClientSecret are the web client's credentials.
	ClientID, ClientSecret string

	cmd  *exec.Cmd
	logs *syncBuffer
}

// Binary returns the path of the provider: $MCPVEC_OIDC_PROVIDER when set,
// else oidc-example-provider on PATH, in $GOBIN or in $HOME/go/bin.
func Binary() (string, error) {
	if p := os.Getenv("MCPVEC_OIDC_PROVIDER"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath(binaryName); err == nil {
		return p, nil
	}
	dirs := []string{os.Getenv("GOBIN")}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		if p := filepath.Join(d, binaryName); d != "" && isFile(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH, in $GOBIN or in ~/go/bin; install it with `%s`", binaryName, Install)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// SkipUnlessInstalled skips tb when the provider is not installed, or
// fails it under MCPVEC_OIDC_TESTS=required.
func SkipUnlessInstalled(tb testing.TB) {
	tb.Helper()
	if _, err := Binary(); err != nil {
		if strings.EqualFold(os.Getenv("MCPVEC_OIDC_TESTS"), "required") {
			tb.Fatalf("MCPVEC_OIDC_TESTS=required: %v", err)
		}
		tb.Skipf("skipping OpenID provider test: %v (set MCPVEC_OIDC_TESTS=required to fail instead)", err)
	}
}

// Start runs a provider that accepts the redirect URIs (exact matches) and
// knows users (Ann and Bob when none are given), waits until its discovery
// document answers, and stops it when tb ends. It skips tb when the
// provider is not installed (see SkipUnlessInstalled) and fails it when
// the provider does not start within ten seconds.
func Start(tb testing.TB, redirectURIs []string, users ...User) *Provider {
	tb.Helper()
	SkipUnlessInstalled(tb)
	bin, _ := Binary()
	if len(users) == 0 {
		users = []User{Ann, Bob}
	}
	usersFile := filepath.Join(tb.TempDir(), "users.json")
	if err := writeUsers(usersFile, users); err != nil {
		tb.Fatalf("oidctest: %v", err)
	}
	var err error
	for attempt := 0; attempt < 3; attempt++ { // a free port may be taken before the child binds it
		var p *Provider
		if p, err = launch(bin, usersFile, redirectURIs); err == nil {
			tb.Cleanup(func() { p.stop(tb) })
			return p
		}
	}
	tb.Fatalf("oidctest: %v", err)
	return nil
}

// writeUsers writes the provider's USERS_FILE: an object of id → user.
func writeUsers(path string, users []User) error {
	type fileUser struct {
		User
		PreferredLanguage string
	}
	m := map[string]fileUser{}
	for _, u := range users {
		m[u.ID] = fileUser{User: u, PreferredLanguage: "en"}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("users file: %w", err)
	}
	return os.WriteFile(path, b, 0o600)
}

func launch(bin, usersFile string, redirectURIs []string) (*Provider, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &Provider{Issuer: "http://localhost:" + strconv.Itoa(port) + "/", ClientID: ClientID,
		ClientSecret: ClientSecret, logs: &syncBuffer{}}
	p.cmd = exec.Command(bin)
	p.cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port), "USERS_FILE="+usersFile,
		"REDIRECT_URI="+strings.Join(redirectURIs, ","))
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(exited) }()
	if err := p.waitReady(exited); err != nil {
		_ = p.cmd.Process.Kill()
		<-exited
		return nil, fmt.Errorf("%w; provider log:\n%s", err, p.logs.tail(2000))
	}
	return p, nil
}

// waitReady polls the discovery document until it answers 200.
func (p *Provider) waitReady(exited <-chan struct{}) error {
	deadline := time.Now().Add(10 * time.Second)
	c := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("provider exited at start")
		default:
		}
		resp, err := c.Get(p.Issuer + ".well-known/openid-configuration")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("provider did not answer within 10s")
}

func (p *Provider) stop(tb testing.TB) {
	_ = p.cmd.Process.Kill()
	if tb.Failed() {
		tb.Logf("oidctest: provider %s log (tail):\n%s", p.Issuer, p.logs.tail(4000))
	}
}

// Logs returns the provider's log so far.
func (p *Provider) Logs() string { return p.logs.tail(1 << 20) }

// freePort returns a TCP port free on loopback a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b.Bytes()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
