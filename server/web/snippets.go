package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpvec/mcpvec/server/internal/loopback"
)

// The Connect page's snippets, each written for the server's actual
// configuration (public URL or not, token, OAuth, secret path).

// tokenPlaceholder stands for the --token value in snippets: the page
// never shows the token itself.
const tokenPlaceholder = "YOUR_TOKEN"

// tunnelPlaceholder stands for the https address a tunnel prints.
const tunnelPlaceholder = "https://NAME.trycloudflare.com"

type connectData struct {
	MCPURL, SSEURL             string
	OAuth, Token, Public       bool
	SecretPath                 bool
	LibraryPath, Command       string
	Responses, ResponsesServe  string // ResponsesServe: how to restart for it ("" when it works as is)
	TunnelCmd, PublicServe     string // without a public URL: how to get one
	TunnelMCPURL               string // the connector URL once tunnelled
	ChatGPTServe               string // public without OAuth: how to restart with it
	Desktop, ClaudeCode, Codex string
	Test                       *testResult
	Query                      string
	// Libraries are every library's endpoint when the server has several.
	Libraries []libraryEndpoint
}

// libraryEndpoint is one library's streamable HTTP URL on the Connect page.
type libraryEndpoint struct {
	Name, URL string
	Current   bool
}

func (h *Handler) connectData(r *http.Request) connectData {
	b := h.base(r)
	o := h.opts
	d := connectData{MCPURL: b + o.MCPPath, SSEURL: b + strings.TrimSuffix(o.MCPPath, "/mcp") + "/sse/",
		OAuth: o.CheckOwner != nil, Token: o.Token != "", Public: o.PublicURL != "" && !loopbackURL(o.PublicURL),
		SecretPath: strings.TrimSuffix(o.MCPPath, "/mcp") != o.Base, LibraryPath: o.LibraryPath, Command: o.Command}
	if d.Command == "" {
		d.Command = "mcpvec"
	}
	stdio := []string{d.Command, "serve", "--stdio"}
	if d.LibraryPath != "" {
		stdio = append(stdio, "--db", d.LibraryPath)
	}
	name := "mcpvec" // one entry per library in the apps' configurations
	if len(o.Libraries) > 1 {
		name += "-" + strings.TrimPrefix(o.Base, "/")
		for _, l := range o.Libraries {
			d.Libraries = append(d.Libraries, libraryEndpoint{Name: l.Name, URL: b + l.MCPPath, Current: l.Base == o.Base})
		}
	}
	d.Desktop = indent(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": stdio[0], "args": stdio[1:]}}})
	d.ClaudeCode = "claude mcp add " + name + " -- " + shellJoin(stdio)
	d.Codex = "[mcp_servers." + name + "]\ncommand = " + jsonString(stdio[0]) + "\nargs = [" + strings.Join(mapStrings(stdio[1:], jsonString), ", ") + "]"
	local := o.Addr
	if local == "" {
		local = r.Host
	}
	public := d.MCPURL
	if !d.Public {
		d.TunnelCmd = "cloudflared tunnel --url http://" + local
		d.TunnelMCPURL = tunnelPlaceholder + o.MCPPath
		public = d.TunnelMCPURL
		d.PublicServe = h.serveCommand(d, local, "--oauth")
	}
	d.Responses = responsesTool(public)
	switch {
	case !d.Public:
		d.ResponsesServe = h.serveCommand(d, local, "--token", tokenPlaceholder)
	case !d.Token:
		d.ResponsesServe = h.serveCommand(d, local, "--public-url", o.PublicURL, "--token", tokenPlaceholder)
	}
	if d.Public && !d.OAuth {
		d.ChatGPTServe = h.serveCommand(d, local, "--public-url", o.PublicURL, "--oauth")
	}
	return d
}

// loopbackURL reports whether u names this machine (a --public-url for
// testing): ChatGPT and the Responses API cannot reach it either.
func loopbackURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && loopback.Host(p.Hostname())
}

// serveCommand is the `mcpvec serve` command line that serves this library
// as now (address, secret path, OAuth) plus extra flags, with
// --public-url set to the tunnel placeholder unless extra sets it.
func (h *Handler) serveCommand(d connectData, host string, extra ...string) string {
	args := []string{d.Command, "serve"}
	if libs := h.opts.Libraries; len(libs) > 1 {
		for _, l := range libs {
			args = append(args, "--library", l.Name+"="+l.Path)
		}
	} else if d.LibraryPath != "" {
		args = append(args, "--db", d.LibraryPath)
	}
	if host != "127.0.0.1:8080" && host != "localhost:8080" {
		args = append(args, "--addr", host)
	}
	if !strings.Contains(strings.Join(extra, " "), "--public-url") {
		args = append(args, "--public-url", tunnelPlaceholder)
	}
	if d.SecretPath {
		args = append(args, "--secret-path")
	}
	if d.OAuth && !strings.Contains(strings.Join(extra, " "), "--oauth") {
		args = append(args, "--oauth")
	}
	return shellJoin(append(args, extra...))
}

// responsesTool is the OpenAI Responses API request with an MCP tool for
// url. The Responses API sends a fixed header, so it authenticates with
// the --token (OAuth sign-in is for ChatGPT and Claude).
func responsesTool(url string) string {
	tool := map[string]any{"type": "mcp", "server_label": "mcpvec", "server_url": url,
		"allowed_tools": []string{"search", "fetch"}, "require_approval": "never",
		"headers": map[string]string{"Authorization": "Bearer " + tokenPlaceholder}}
	return indent(map[string]any{"model": "o4-mini-deep-research", "input": "…", "tools": []any{tool}})
}

// indent is v as indented JSON, without HTML escaping (the template
// escapes for HTML; the text must stay what a user pastes).
func indent(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonString quotes s as a JSON string, which is also a valid TOML basic
// string (backslashes of Windows paths escaped).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func mapStrings(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// shellJoin quotes args for a POSIX shell: words of safe characters as
// they are, others in single quotes.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = a
		if a == "" || strings.ContainsFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@,+%", r))
		}) {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
