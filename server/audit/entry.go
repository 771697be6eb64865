package audit

import "time"

// Actions an Entry records.
const (
	Search = "search"
	Fetch  = "fetch"
	Upload = "upload"
	Remove = "remove"
	SignIn = "signin"  // a person signed in and a connector was approved
	Refuse = "refused" // a request or sign-in the allow-list turned away
)

// Entry is one line of the audit trail.
type Entry struct {
	Time time.Time `json:"time"`
	// User is the person's label (their verified e-mail, else their
	// subject; "owner" for the owner) and Key their issuer#subject.
	User string `json:"user"`
	Key  string `json:"key,omitempty"`
	// Library is the library's name as serve names it.
	Library string `json:"library"`
	// Client is the MCP client's name (or "web" for the web page).
	Client string `json:"client,omitempty"`
	Action string `json:"action"`
	// Target is the document or passage id fetched, uploaded or removed.
	Target string `json:"target,omitempty"`
	// Query is the search's text, kept only when the owner turned that on.
	Query string `json:"query,omitempty"`
	// Results is how many results a search or fetch returned, documents
	// an upload added, or passages a removal removed.
	Results int `json:"results"`
	// Outcome is "ok", or why not ("tool_error", "failed", "forbidden").
	Outcome string `json:"outcome,omitempty"`
}
