package oauth

import (
	"fmt"
	"net/http"
	"testing"
)

// clientHeader names the test client a request comes from: the tests all
// run on loopback, so Config.ClientAddr reads it instead of the peer.
const clientHeader = "X-Test-Client"

func newFloodEnv(t *testing.T) *testEnv {
	return newTestEnv(t, nil, func(c *Config) {
		c.ClientAddr = func(r *http.Request) string { return r.Header.Get(clientHeader) }
	})
}

// fromTransport sends every request as coming from one test client.
type fromTransport struct{ addr string }

func (f fromTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(clientHeader, f.addr)
	return http.DefaultTransport.RoundTrip(r)
}

// browserFrom is a browser at the network address addr.
func (e *testEnv) browserFrom(addr string) *http.Client {
	b := e.browser()
	b.Transport = fromTransport{addr}
	return b
}

// flood sends n authorization requests for client from addr, each from a
// fresh browser, and returns the consent form of the last one shown.
func (e *testEnv) flood(addr, client string, n int) (b *http.Client, last consentForm, refused int) {
	e.t.Helper()
	_, c := pkce("f")
	for range n {
		b = e.browserFrom(addr)
		resp, page := e.authorize(b, authParams(client, c))
		if resp.StatusCode != http.StatusOK {
			refused++
			continue
		}
		last = parseConsent(e.t, page)
	}
	return b, last, refused
}

// ownerSignIn signs in as the owner from addr with a client of their own
// and the passphrase; it returns "" or what went wrong.
func (e *testEnv) ownerSignIn(addr string) string {
	e.t.Helper()
	b := e.browserFrom(addr)
	_, c := pkce("o")
	resp, page := e.authorize(b, authParams(e.register(), c))
	if resp.StatusCode != http.StatusOK {
		return "authorize: " + resp.Status
	}
	resp, _ = e.consent(b, parseConsent(e.t, page), "approve", testPass)
	if resp.StatusCode != http.StatusFound {
		return "approve: " + resp.Status
	}
	return ""
}

// TestAuthFloodDoesNotLockOwnerOut is the lock-out attack: a stranger
// fills the waiting sign-ins and guesses the passphrase until it locks.
// The owner must still sign in each round, both from another address and
// from the stranger's (as behind a tunnel, where every visitor arrives
// from 127.0.0.1 and only the client ids differ).
func TestAuthFloodDoesNotLockOwnerOut(t *testing.T) {
	const stranger = "203.0.113.7"
	for _, owner := range []string{"198.51.100.2", stranger} {
		t.Run(owner, func(t *testing.T) {
			e := newFloodEnv(t)
			rounds, ok := 5, 0
			for i := range rounds {
				problem := e.floodRound(stranger, owner)
				if problem != "" {
					t.Errorf("round %d: the owner was locked out: %s", i, problem)
				} else {
					ok++
				}
			}
			t.Logf("owner sign-ins while flooded: %d of %d", ok, rounds)
			if n := e.pendingCount(); n > maxPending+2*rounds {
				t.Errorf("%d sign-ins wait after a flood from one client, want at most about %d", n, maxPending)
			}
		})
	}
}

// floodRound: the owner opens a consent page, a stranger floods the
// authorization endpoint and guesses the passphrase past the limit, then
// the owner signs in afresh and approves the page opened before. It returns "" or
// what the owner could not do.
func (e *testEnv) floodRound(stranger, owner string) string {
	e.t.Helper()
	ob := e.browserFrom(owner)
	_, c := pkce("o")
	_, page := e.authorize(ob, authParams(e.register(), c))
	opened := parseConsent(e.t, page)
	b, f, refused := e.flood(stranger, e.register(), maxPending+10)
	if f.request != "" {
		for range e.srv.cfg.MaxFailures + 3 {
			e.consent(b, f, "approve", "wrong passphrase!")
		}
	}
	e.t.Logf("%d of the stranger's %d sign-ins refused", refused, maxPending+10)
	problem := e.ownerSignIn(owner) // while the stranger's requests wait
	resp, _ := e.consent(ob, opened, "approve", testPass)
	if resp.StatusCode != http.StatusFound {
		problem += " (the page opened before: " + resp.Status + ")"
	}
	return problem
}

// TestAuthFloodFromEverywhere is the same attack from many addresses and
// clients: the passphrase locks for everyone at the global ceiling, the
// waiting sign-ins stay under theirs, and the owner's approval on the
// machine (`mcpvec auth approve`) and Continue still work.
func TestAuthFloodFromEverywhere(t *testing.T) {
	e := newFloodEnv(t)
	b := e.browserFrom("198.51.100.2")
	_, c := pkce("o")
	resp, page := e.authorize(b, authParams(e.register(), c))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("owner's authorize: %s", resp.Status)
	}
	mine := parseConsent(t, page)
	guesses := globalFailureFactor * e.srv.cfg.MaxFailures
	for i := range guesses {
		sb, f, _ := e.flood(fmt.Sprintf("203.0.113.%d", i), e.register(), 1)
		e.consent(sb, f, "approve", "wrong passphrase!")
	}
	if resp, _ := e.consent(b, mine, "approve", testPass); resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the passphrase after %d guesses from everywhere: %s, want 429", guesses, resp.Status)
	}
	if _, err := Approve(e.st, mine.approveCode, e.clock.Now()); err != nil {
		t.Fatalf("approve on the machine: %v", err)
	}
	// Past the hard ceiling with a client each (saved directly: through
	// HTTP with a registration each this takes minutes under -race).
	for i := range maxPendingHard + 20 {
		p := &pending{ClientID: fmt.Sprint("c", i), From: fmt.Sprint("192.0.2.", i%250), RedirectURI: testRedirect}
		if _, err := e.srv.savePending(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.pendingCount(); n > maxPendingHard {
		t.Errorf("%d sign-ins wait, more than the ceiling %d", n, maxPendingHard)
	}
	resp, body := e.consent(b, mine, "continue", "")
	if loc := redirectQuery(t, resp, body); loc.Get("code") == "" {
		t.Fatalf("continue after approval: %v", loc)
	}
}

func (e *testEnv) pendingCount() int {
	n := 0
	e.st.View(func(tx Tx) error {
		return tx.ForEach(kindPending, func(string, []byte) error { n++; return nil })
	})
	return n
}
