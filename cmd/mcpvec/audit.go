package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/audit"
	"github.com/mcpvec/mcpvec/server/identity"
	"github.com/mcpvec/mcpvec/server/web"
)

// auditor feeds one served library's audit trail. A nil *auditor records
// nothing. It is safe for concurrent use.
type auditor struct {
	log     *audit.Log
	library string
	queries bool // keep search text (--audit-queries)
}

// write records one entry of p; a failure is logged, never returned (a
// full disk must not stop searches).
func (a *auditor) write(p identity.Person, e audit.Entry) {
	if a == nil {
		return
	}
	e.User, e.Key, e.Library = p.Label(), p.Key(), a.library
	if err := a.log.Write(e); err != nil {
		slog.Error("audit: entry lost", "action", e.Action, "user", e.User, "err", err)
	}
}

// call records a search or fetch (server.Options.Observe).
func (a *auditor) call(c server.Call) {
	e := audit.Entry{Time: c.Time, Client: c.Client, Action: c.Tool, Results: c.Results, Outcome: c.Outcome}
	switch {
	case c.Tool == audit.Fetch:
		e.Target = c.Query
	case a != nil && a.queries:
		e.Query = c.Query
	}
	a.write(c.Person, e)
}

// access records a request of a person the allow-list refused
// (server.Options.Access); calls are recorded by call.
func (a *auditor) access(r server.Request) {
	if r.Status == 403 && !r.Person.IsZero() && r.MCPMethod == "" {
		a.write(r.Person, audit.Entry{Time: r.Time, Action: audit.Refuse, Target: r.Route, Outcome: "forbidden"})
	}
}

// auditUploads records what became of each file of a web upload, by the
// person ctx carries (the owner when none).
func (st *serveState) auditUploads(ctx context.Context, ups []web.Upload) {
	p, _ := identity.FromContext(ctx)
	for _, u := range ups {
		n := 0
		if u.Status == web.Added || u.Status == web.Updated {
			n = 1
		}
		st.audit.write(p, audit.Entry{Client: "web", Action: audit.Upload, Target: cmp.Or(u.DocID, u.Name), Results: n, Outcome: string(u.Status)})
	}
}

// auditRemoval records a document removed on the web page
// (web.Options.Removed).
func (st *serveState) auditRemoval(ctx context.Context, id string, passages int) {
	p, _ := identity.FromContext(ctx)
	st.audit.write(p, audit.Entry{Client: "web", Action: audit.Remove, Target: id, Results: passages, Outcome: "ok"})
}

func auditUsage(w io.Writer) {
	fmt.Fprint(w, "Usage: mcpvec audit [--user WHO] [--since 24h|RFC3339] [--library NAME] [--audit DIR] [--json]\n\n"+
		"Print the audit trail of `mcpvec serve` (who searched, fetched, uploaded and removed what), oldest first.\n"+
		"It is kept in LIBRARY.audit/ beside the library file, or in the folder serve's --audit named.\n\n")
}

func runAudit(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("audit", "[--user WHO] [--since 24h|RFC3339] [--library NAME] [--audit DIR] [--json]", e)
	dir := fs.String("audit", "", "the audit folder `DIR` serve's --audit named (default: LIBRARY.audit beside the library file)")
	user := fs.String("user", "", "only this person (`WHO`): their e-mail, ISSUER#SUBJECT, or owner")
	since := fs.String("since", "", "only entries since `TIME`: a duration back from now (24h, 90m) or an RFC 3339 time")
	asJSON := fs.Bool("json", false, "print JSON Lines, as stored")
	if _, err := parseArgs(fs, args, e, func(n int) bool { return n == 0 }); err != nil {
		return err
	}
	f := audit.Filter{User: *user}
	var err error
	if f.Since, err = parseSince(*since, time.Now()); err != nil {
		return &usageError{prog: "mcpvec audit", msg: err.Error(), usage: auditUsage}
	}
	if *dir != "" {
		*dir = absPath(e, *dir)
		f.Library = lf.libName() // a shared folder: --library picks one
	} else if *dir, err = lf.path(e); err != nil {
		return err
	} else {
		*dir += ".audit"
	}
	entries, err := audit.Read(*dir, f)
	if err != nil {
		return err
	}
	if *asJSON {
		for _, en := range entries {
			if err := writeJSONLine(e.stdout, en); err != nil {
				return err
			}
		}
		return nil
	}
	printAudit(e.stdout, entries, *dir)
	return nil
}

// parseSince reads --since: "" (all), a duration back from now, or an
// RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a duration (24h) or an RFC 3339 time (2026-12-05T08:00:00Z)", s)
}

func printAudit(w io.Writer, entries []audit.Entry, dir string) {
	if len(entries) == 0 {
		fmt.Fprintf(w, "No audit entries in %s match.\n", dir)
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tUSER\tLIBRARY\tCLIENT\tACTION\tTARGET\tRESULTS\tOUTCOME\tQUERY")
	for _, en := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", en.Time.Local().Format(time.DateTime), en.User, en.Library,
			dash(en.Client), en.Action, dash(en.Target), en.Results, dash(en.Outcome), strings.ReplaceAll(en.Query, "\t", " "))
	}
	tw.Flush()
}

func writeJSONLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
