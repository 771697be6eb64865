package server

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/store"
)

// countingAuth is storeAuth that counts the transactions that commit.
type countingAuth struct {
	storeAuth
	commits *atomic.Int64
}

func (a countingAuth) Update(fn func(oauth.Tx) error) error {
	err := a.storeAuth.Update(fn)
	if err == nil {
		a.commits.Add(1)
	}
	return err
}

// writeBytes is this process's write_bytes from /proc/self/io: the bytes it
// dirtied in files, or -1 where the kernel does not say.
func writeBytes() int64 {
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "write_bytes: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return -1
}

// TestOAuthRefusedRequestsWriteNothing sends refused token and revocation
// requests (unknown codes and refresh tokens, unknown tokens, a token
// revoked by another client) to a server on a real library file: none may
// commit a transaction or grow the file. MCPVEC_REFUSED_N sets how many of
// each (default 50, so 200 in all); the bytes written are logged.
func TestOAuthRefusedRequestsWriteNothing(t *testing.T) {
	n := 50
	if v, err := strconv.Atoi(os.Getenv("MCPVEC_REFUSED_N")); err == nil && v > 0 {
		n = min(v, 5000)
	}
	// Synced like a real library (storetest's are not), so each commit's
	// pages are written out and counted again by the next one.
	db, err := store.Open(filepath.Join(t.TempDir(), "lib.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var commits atomic.Int64
	st := countingAuth{storeAuth{db}, &commits}
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	hash, err := oauth.HashPassphrase(oauthTestPass)
	if err == nil {
		err = oauth.SetPassphrase(st, hash)
	}
	if err != nil {
		t.Fatal(err)
	}
	a, err := oauth.New(oauth.Config{Issuer: ts.URL, Resources: []string{ts.URL + "/mcp"}, Store: st, Logger: quietLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/oauth/", a)
	access := oauthLogin(t, ts.URL)
	refused := []struct {
		path string
		form url.Values
	}{
		{"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {"c"}, "code": {"mcpvec_code_nope"},
			"code_verifier": {strings.Repeat("v", 43)}, "redirect_uri": {"http://127.0.0.1:9/cb"}}},
		{"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"c"}, "refresh_token": {"mcpvec_rt_nope"}}},
		{"/oauth/revoke", url.Values{"token": {"mcpvec_at_nope"}}},
		{"/oauth/revoke", url.Values{"token": {access}, "client_id": {"someone-else"}}},
	}
	size0, commits0, wb0 := fileSize(t, db), commits.Load(), writeBytes()
	for range n {
		for _, r := range refused {
			resp, err := http.PostForm(ts.URL+r.path, r.form)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if want := http.StatusBadRequest; r.path == "/oauth/token" && resp.StatusCode != want {
				t.Fatalf("%s: %s, want %d", r.path, resp.Status, want)
			}
		}
	}
	wb := writeBytes() - wb0
	t.Logf("%d refused requests: %d commits, %d bytes written (%.0f bytes per 1,000), file %d → %d bytes",
		n*len(refused), commits.Load()-commits0, wb, float64(wb)*1000/float64(n*len(refused)), size0, fileSize(t, db))
	if got := commits.Load() - commits0; got != 0 {
		t.Errorf("%d refused requests committed %d transactions, want 0", n*len(refused), got)
	}
	if got := fileSize(t, db); got != size0 {
		t.Errorf("the library file grew from %d to %d bytes", size0, got)
	}
	if resp, err := http.PostForm(ts.URL+"/oauth/revoke", url.Values{"token": {access}}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke by its client: %v %v", resp, err)
	}
	if got := commits.Load() - commits0; got != 1 {
		t.Errorf("a real revocation committed %d transactions, want 1", got)
	}
}

func fileSize(t *testing.T, db *store.DB) int64 {
	t.Helper()
	fi, err := os.Stat(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
