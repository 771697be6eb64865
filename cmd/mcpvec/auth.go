package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/admin"
	"github.com/mcpvec/mcpvec/server/oauth"
	"github.com/mcpvec/mcpvec/store"
)

// authStore backs oauth.Store with the library file.
type authStore struct{ db *store.DB }

func (a authStore) View(fn func(oauth.Tx) error) error {
	return a.db.AuthView(func(tx *store.AuthTx) error { return fn(tx) })
}

func (a authStore) Update(fn func(oauth.Tx) error) error {
	return a.db.AuthUpdate(func(tx *store.AuthTx) error { return fn(tx) })
}

// insecureLoopbackClientsEnv lets client ID metadata documents live on
// loopback addresses. Only the end-to-end tests set it.
const insecureLoopbackClientsEnv = "MCPVEC_OAUTH_INSECURE_LOOPBACK_CLIENTS"

// newAuthorizer builds the OAuth server of `serve --oauth` on the library.
// Its resources are the given URLs, or (nil) the MCP endpoints under
// o.SecretPath. With af's --oidc-issuer, people sign in there.
func newAuthorizer(e *env, db *store.DB, o *server.Options, resources []string, af *authFlags) (*oauth.Server, error) {
	if o.PublicURL == "" {
		return nil, errors.New("--oauth needs --public-url: the https address clients reach (plain http only on a loopback address)")
	}
	base := strings.TrimRight(o.PublicURL, "/")
	prefix := ""
	if o.SecretPath != "" {
		prefix = "/" + o.SecretPath
	}
	cmd := "mcpvec auth approve"
	// Name the library unless a plain `mcpvec auth approve` would find it.
	if def, err := (&libFlags{}).path(e); err != nil || def != db.Path() {
		cmd = fmt.Sprintf("mcpvec auth approve --db %s", db.Path())
	}
	if resources == nil {
		resources = []string{base + prefix + "/mcp", base + prefix + "/sse"}
	}
	up, err := af.upstream()
	if err != nil {
		return nil, err
	}
	a, err := oauth.New(oauth.Config{
		Issuer:         base,
		Resources:      resources,
		Store:          authStore{db},
		Logger:         slog.Default(),
		ApproveCommand: cmd,
		Metadata:       oauth.MetadataOptions{AllowLoopback: e.getenv(insecureLoopbackClientsEnv) == "1"},
		Upstream:       up,
		Admit:          af.admit,
	})
	if err != nil {
		return nil, fmt.Errorf("--oauth: %w", err)
	}
	if up != nil {
		fmt.Fprintf(e.stdout, "OAuth sign-in is on: people sign in at %s (register %s there as the redirect URI).\n", af.issuer, a.CallbackURL())
		return a, nil
	}
	fmt.Fprintln(e.stdout, "OAuth sign-in is on: connectors sign in at the MCP URL below and you approve them on its sign-in page.")
	if l, err := oauth.List(authStore{db}); err == nil && !l.Passphrase {
		fmt.Fprintln(e.stdout, "No owner passphrase yet: set one with `mcpvec auth passphrase`, or approve each sign-in with the command its page shows.")
	}
	return a, nil
}

func authUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: mcpvec auth <command> [flags]

Manage sign-in for `+"`mcpvec serve --oauth`"+`:
  passphrase       set the owner passphrase that approves sign-ins ($MCPVEC_OWNER_PASSPHRASE, else asked)
  approve CODE     approve the sign-in whose page shows CODE
  ls [--json]      list clients and grants with their last use
  users [--json]   list who holds grants: each person, their libraries and clients, last use
  revoke ID|--user WHO|--all
                   revoke a grant, or a client and all its grants, or every grant of one
                   person (WHO: their e-mail or ISSUER#SUBJECT), or everything
`)
}

func runAuth(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		authUsage(e.stdout)
		return nil
	}
	switch args[0] {
	case "passphrase":
		return runAuthPassphrase(ctx, e, args[1:])
	case "approve":
		return runAuthApprove(ctx, e, args[1:])
	case "ls":
		return runAuthLs(ctx, e, args[1:])
	case "revoke":
		return runAuthRevoke(ctx, e, args[1:])
	case "users":
		return runAuthUsers(ctx, e, args[1:])
	}
	return &usageError{prog: "mcpvec auth", msg: fmt.Sprintf("unknown command %q", args[0]), usage: authUsage}
}

// withAuth is withLibrary for an auth command (args as forwarded after
// "auth"): fn runs on the sign-ins of the library file, or the command is
// handed to the running server that holds it.
func withAuth(ctx context.Context, e *env, lf *libFlags, args []string, write bool, fn func(st authStore) error) error {
	return withLibrary(ctx, e, lf, append([]string{"auth"}, args...), write, needStore, func(h *handle) error {
		if h.db == nil {
			return errOAuthNeedsFile
		}
		return fn(authStore{h.db})
	})
}

// errOAuthNeedsFile: OAuth sign-ins are kept in the library file's store,
// which a Weaviate library does not have.
var errOAuthNeedsFile = errors.New("OAuth sign-ins are kept in a library file (--db); not yet with --store weaviate://…")

func runAuthPassphrase(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("auth passphrase", "[flags]", e)
	hashFile := fs.String("argon2id-hash-file", "", "take the stored form from this file, then remove it (how a running server is handed the command, so the hash never shows in its logs)")
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	hash, err := passphraseHash(e, *hashFile)
	if err != nil {
		return err
	}
	h, err := openLibrary(ctx, e, lf, true, needStore)
	var fw *forwardTo
	if errors.As(err, &fw) {
		return forwardPassphrase(ctx, e, fw.client, hash)
	}
	if err == nil && h.db == nil {
		h.close()
		err = errOAuthNeedsFile
	}
	if err != nil {
		return err
	}
	defer h.close()
	if err := oauth.SetPassphrase(authStore{h.db}, hash); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "Owner passphrase set. Type it on a sign-in page to approve a connector.")
	return nil
}

// passphraseHash reads the hash a forwarding mcpvec left in file, or asks
// for the passphrase and hashes it.
func passphraseHash(e *env, file string) ([]byte, error) {
	if file != "" {
		file = absPath(e, file)
		defer os.Remove(file)
		return os.ReadFile(file)
	}
	if e.forwarded != nil {
		return nil, errors.New("a running server cannot ask for a passphrase")
	}
	pass, err := readPassphrase(e)
	if err != nil {
		return nil, err
	}
	return oauth.HashPassphrase(pass)
}

// forwardPassphrase hands the hash to the running server in a private
// temporary file (the admin channel logs its arguments).
func forwardPassphrase(ctx context.Context, e *env, c *admin.Client, hash []byte) error {
	f, err := os.CreateTemp("", "mcpvec-passphrase-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(hash)
	if err = errors.Join(err, f.Close()); err != nil {
		return failf("write %s: %w", f.Name(), err)
	}
	return forward(ctx, e, c, []string{"auth", "passphrase", "--argon2id-hash-file", f.Name()})
}

// readPassphrase takes $MCPVEC_OWNER_PASSPHRASE, else asks twice on a
// terminal, else reads one line of stdin.
func readPassphrase(e *env) (string, error) {
	if p := e.getenv("MCPVEC_OWNER_PASSPHRASE"); p != "" {
		return p, nil
	}
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(e.stderr, "New owner passphrase: ")
		a, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprint(e.stderr, "\nAgain: ")
		b, err2 := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err := errors.Join(err, err2); err != nil {
			return "", fmt.Errorf("read passphrase: %w", err)
		}
		if string(a) != string(b) {
			return "", errors.New("the passphrases differ")
		}
		return string(a), nil
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read passphrase: %w", err)
	}
	if line == "" {
		return "", errNoPassphrase
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// errNoPassphrase: stdin ended before a line (`auth passphrase </dev/null`),
// which "passphrase too short" described badly.
var errNoPassphrase = errors.New("no passphrase given: type it at a terminal, pipe one line to stdin, or set MCPVEC_OWNER_PASSPHRASE")

func runAuthApprove(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("auth approve", "[flags] CODE", e)
	pos, err := parseArgs(fs, args, e, one)
	if err != nil {
		return err
	}
	return withAuth(ctx, e, lf, append([]string{"approve"}, args...), true, func(st authStore) error {
		name, err := oauth.Approve(st, pos[0], time.Now())
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Approved %q. Press Continue on the sign-in page.\n", name)
		return nil
	})
}

func runAuthLs(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("auth ls", "[flags]", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	return withAuth(ctx, e, lf, append([]string{"ls"}, args...), false, func(st authStore) error {
		l, err := oauth.List(st)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(e.stdout, l)
		}
		printAuthListing(e.stdout, l)
		return nil
	})
}

func printAuthListing(w io.Writer, l oauth.Listing) {
	if !l.Passphrase {
		fmt.Fprintln(w, "No owner passphrase is set (mcpvec auth passphrase).")
	}
	if len(l.Clients) == 0 {
		fmt.Fprintln(w, "No client has registered or signed in.")
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tNAME\tREDIRECT HOSTS\tSINCE")
	for _, c := range l.Clients {
		var hosts []string
		for _, r := range c.RedirectURIs {
			if u, err := url.Parse(r); err == nil {
				hosts = append(hosts, u.Host)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.Name, strings.Join(hosts, ","), c.Created.Local().Format(time.DateTime))
	}
	fmt.Fprintln(tw, "\nGRANT\tCLIENT\tRESOURCE\tAPPROVED\tLAST USE")
	for _, g := range l.Grants {
		last := "never"
		if !g.LastUsed.IsZero() {
			last = g.LastUsed.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", g.ID, g.ClientName, g.Resource, g.Created.Local().Format(time.DateTime), last)
	}
	tw.Flush()
}

func runAuthRevoke(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("auth revoke", "[flags] ID|--user WHO|--all", e)
	all := fs.Bool("all", false, "revoke every grant and forget every client")
	user := fs.String("user", "", "revoke every grant of one person: their e-mail address or ISSUER#SUBJECT (see `mcpvec auth users`)")
	pos, err := parseArgs(fs, args, e, func(n int) bool {
		picked := n
		if *all {
			picked++
		}
		if *user != "" {
			picked++
		}
		return picked == 1
	})
	if err != nil {
		return err
	}
	return withAuth(ctx, e, lf, append([]string{"revoke"}, args...), true, func(st authStore) error {
		var n int
		var err error
		switch {
		case *all:
			n, err = oauth.RevokeAll(st)
		case *user != "":
			n, err = oauth.RevokeUser(st, *user)
		default:
			n, err = oauth.Revoke(st, pos[0])
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Revoked %d grant(s); their tokens stop working on the next request.\n", n)
		return nil
	})
}
