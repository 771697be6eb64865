package web

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpvec/mcpvec/server"
)

// AuditLog is the audit trail as the activity page reads it (cmd adapts
// the audit package's reader). Implementations must be safe for
// concurrent use.
type AuditLog interface {
	// Entries returns at most n entries since since, newest first: user's
	// (an entry's user label, such as an e-mail address or "owner", or a
	// person's identity.Person.Key), or everyone's when user is "".
	Entries(ctx context.Context, user string, since time.Time, n int) ([]AuditEntry, error)
}

// AuditEntry is one line of the audit trail: who did what, where, when.
type AuditEntry struct {
	Time                          time.Time
	User, Library, Action, Target string // Target: the query (when recorded), id or file name
	Failed                        bool
}

// auditShown is how many audit entries the activity page lists, from
// auditSince ago at most.
const (
	auditShown = 200
	auditSince = 30 * 24 * time.Hour
)

type activityData struct {
	Calls   []server.Call // the in-memory ring: the owner's view only
	Audit   []AuditEntry
	HasLog  bool   // an audit trail is kept
	User    string // whose entries the owner asked for ("" everyone's)
	IsOwner bool   // the owner may pick the user
	Error   string
}

// activityPage shows the owner the recent MCP calls and the audit trail
// (?user= narrows it to one person); a person sees only their own
// entries of the audit trail, whatever ?user= says.
func (h *Handler) activityPage(w http.ResponseWriter, r *http.Request) {
	sess := sessionOf(r)
	d := activityData{HasLog: h.opts.Audit != nil, IsOwner: !h.opts.Exposed || sess.isOwner()}
	if d.IsOwner {
		d.User = r.URL.Query().Get("user")
		if h.opts.Activity != nil {
			d.Calls = h.opts.Activity.Recent()
		}
	}
	if h.opts.Audit != nil {
		who := d.User
		if !d.IsOwner {
			who = sess.person.Key() // exact, whatever their label
		}
		var err error
		d.Audit, err = h.opts.Audit.Entries(r.Context(), who, time.Now().Add(-auditSince), auditShown)
		if err != nil {
			h.log.Error("web: read the audit trail", "err", err)
			d.Error = "The audit trail could not be read; see the server log."
		}
	}
	h.render(w, r, http.StatusOK, "activity", "Activity", d)
}
