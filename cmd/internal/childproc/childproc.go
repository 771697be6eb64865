// Package childproc holds what the programs that drive the real mcpvec
// binary share (cmd/mcpvec-reliability, cmd/mcpvec-scale, cmd/mcpvec-eval
// and cmd/mcpvec's own end-to-end tests): building it, the environment of
// its children, running them (Run) or starting, stopping and killing them
// with their output kept (Proc), waiting for `serve` to print its endpoint,
// their memory and CPU time from /proc, and one MCP JSON-RPC call over streamable HTTP.
// Its functions are safe for concurrent use.
package childproc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// InitializeBody is an MCP initialize request.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpvec-harness","version":"1"}}}`

// Build compiles ./cmd/mcpvec of the module rooted at root into dir with
// `go build -o`, as a user would build it, and returns the binary's path.
func Build(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "mcpvec")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/mcpvec")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %w\n%s", root, err, out)
	}
	return bin, nil
}

// ModuleRoot walks up from the working directory to the folder holding
// go.mod, the root Build wants.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Run runs bin with args and env to its end (or ctx's) and returns what it
// wrote to stdout and stderr together.
func Run(ctx context.Context, bin string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	return cmd.CombinedOutput()
}

// Env is the environment of a child: the caller's without any MCPVEC_
// variable, and runtimeDir as XDG_RUNTIME_DIR so that the admin socket of a
// server under test is apart from any other server on the machine (and a
// CLI command is never handed to one).
func Env(runtimeDir string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCPVEC_") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "XDG_RUNTIME_DIR="+runtimeDir)
}

// Memory reads VmRSS and VmHWM (the peak) of pid from /proc, in bytes.
func Memory(pid int) (rss, hwm int64, err error) {
	f, err := ProcFields(fmt.Sprintf("/proc/%d/status", pid))
	return f["VmRSS"], f["VmHWM"], err
}

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's times.
const clockTicks = 100

// CPU is the CPU time (user + system) the processes pids have used so far,
// read from /proc/PID/stat; a process it cannot read (not Linux, exited)
// counts 0.
func CPU(pids ...int) time.Duration {
	var sum time.Duration
	for _, pid := range pids {
		sum += cpuOf(pid)
	}
	return sum
}

func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after it do not.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	return time.Duration(ut+st) * time.Second / clockTicks
}

// ProcFields parses a /proc file of "Name:   123 kB" lines (status,
// smaps_rollup) into bytes by name. Lines that are not sizes in kB are left
// out.
func ProcFields(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasSuffix(rest, " kB") {
			continue
		}
		if kb, err := strconv.ParseInt(strings.TrimSuffix(rest, " kB"), 10, 64); err == nil {
			out[name] = kb << 10
		}
	}
	return out, nil
}

// Post sends one JSON-RPC body to a streamable HTTP endpoint, in the
// session when it is not empty, and returns the status, the session header
// and the body (at most 4 MiB).
func Post(ctx context.Context, c *http.Client, url, session, body string) (int, string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), b, err
}

// Tail is the last n bytes of s.
func Tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
