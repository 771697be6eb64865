package web

import (
	"net/http"

	"github.com/mcpvec/mcpvec/server"
)

func (h *Handler) activityPage(w http.ResponseWriter, r *http.Request) {
	var calls []server.Call
	if h.opts.Activity != nil {
		calls = h.opts.Activity.Recent()
	}
	h.render(w, r, http.StatusOK, "activity", "Activity", calls)
}
