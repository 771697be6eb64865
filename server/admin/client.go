package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

const (
	baseURL = "http://mcpvec-admin"
	// cancelGrace is how long Run keeps reading after ctx is cancelled, so
	// the remote command can report how it stopped.
	cancelGrace = 5 * time.Second
)

// Client talks to one server. It is safe for concurrent use.
type Client struct {
	library string // the library the caller means; "" checks none
	path    string // the socket
	server  string // the library the server says it holds
	pid     int    // the server's process id
	holder  string // the command the server says holds the library
	http    *http.Client
}

// Dial checks the socket at path and the server behind it: the socket's
// directory must be private, path must be a socket (not a symlink) owned by
// this user with mode 0600, and the server must hold library (the library
// file's path; "" skips the check). Errors: ErrNoServer when nothing
// listens (no socket, or a stale one), ErrInsecureSocket, ErrWrongLibrary,
// ErrProtocol, or ctx's error. The socket is checked again on every later
// connection.
func Dial(ctx context.Context, path, library string) (*Client, error) {
	if library != "" {
		library = LibraryPath(library)
	}
	c := &Client{library: library, path: path, http: &http.Client{Transport: &http.Transport{
		DialContext:        func(ctx context.Context, _, _ string) (net.Conn, error) { return dialSocket(ctx, path) },
		DisableKeepAlives:  true,
		DisableCompression: true,
	}}}
	if err := c.hello(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	if err := checkSocket(path); err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil && isStale(err) {
		return nil, fmt.Errorf("%w: %s", ErrNoServer, path)
	}
	return conn, err
}

// ServerLibrary returns the library the server said it holds ("" when it
// names none).
func (c *Client) ServerLibrary() string { return c.server }

// Holder returns the command the server said holds the library (Options.
// Holder; "" when it names none, as servers before it did) and the
// server's process id.
func (c *Client) Holder() (command string, pid int) { return c.holder, c.pid }

func (c *Client) hello(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/v1/hello", nil)
	if err != nil {
		return fmt.Errorf("admin hello: %w", err)
	}
	req.Header.Set(headerLibrary, c.library)
	resp, err := c.http.Do(req)
	if err != nil {
		return unwrapURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return refusal(resp)
	}
	var h hello
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxRequest)).Decode(&h); err != nil {
		return fmt.Errorf("%w: decode hello: %w", ErrProtocol, err)
	}
	c.server, c.pid, c.holder = h.Library, h.PID, h.Holder
	return nil
}

// Run sends one command and streams its stdout and stderr to stdout and
// stderr as it runs; it returns the remote exit status. cwd must be
// absolute (relative paths in args are resolved by the server against it).
// When ctx is cancelled (Ctrl-C in the CLI) Run asks the server to cancel
// the command, waits up to a few seconds for its final output and status,
// and returns that status (or ExitUnknown) with ctx's error. Errors:
// ErrNoServer, ErrInsecureSocket, ErrWrongLibrary, ErrProtocol when the
// server refused the request or the stream broke. Writes to stdout and
// stderr happen from the calling goroutine only.
func (c *Client) Run(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) (int, error) {
	if err := ctx.Err(); err != nil {
		return ExitUnknown, fmt.Errorf("admin run: %w", err)
	}
	body, err := json.Marshal(runRequest{Args: args, Cwd: cwd, Library: c.library})
	if err != nil {
		return ExitUnknown, fmt.Errorf("admin run: %w", err)
	}
	// The stream outlives ctx by cancelGrace, so it has its own context.
	streamCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	req, err := http.NewRequestWithContext(streamCtx, http.MethodPost, baseURL+"/v1/run", bytes.NewReader(body))
	if err != nil {
		return ExitUnknown, fmt.Errorf("admin run: %w", err)
	}
	stop := context.AfterFunc(ctx, abort) // until the stream starts
	resp, err := c.http.Do(req)
	stop()
	if err != nil {
		return ExitUnknown, c.runError(ctx, unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ExitUnknown, refusal(resp)
	}
	done := make(chan struct{})
	defer close(done)
	go c.cancelOnDone(ctx, resp.Header.Get(headerCommand), abort, done)
	code, err := copyFrames(resp.Body, stdout, stderr)
	return code, c.runError(ctx, err)
}

// runError prefers ctx's error: a cancelled command's broken stream is
// expected.
func (c *Client) runError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("admin run: %w", ctx.Err())
	}
	return err
}

// cancelOnDone asks the server to cancel command id once ctx ends, then
// gives it cancelGrace to report before abort cuts the stream.
func (c *Client) cancelOnDone(ctx context.Context, id string, abort func(), done <-chan struct{}) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	if err := c.cancel(id); err != nil {
		abort() // closing the connection cancels the command too
		return
	}
	t := time.NewTimer(cancelGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		abort()
	}
}

func (c *Client) cancel(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/v1/cancel/"+url.PathEscape(id), nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("cancel: %s", resp.Status)
	}
	return nil
}

// copyFrames copies output frames until the exit frame.
func copyFrames(r io.Reader, stdout, stderr io.Writer) (int, error) {
	for {
		kind, payload, err := readFrame(r)
		if errors.Is(err, io.EOF) {
			return ExitUnknown, fmt.Errorf("%w: stream ended without exit status", ErrProtocol)
		}
		if err != nil {
			return ExitUnknown, fmt.Errorf("%w: stream broke: %w", ErrProtocol, err)
		}
		switch kind {
		case frameStdout:
			stdout.Write(payload)
		case frameStderr:
			stderr.Write(payload)
		case frameExit:
			code, err := strconv.Atoi(string(payload))
			if err != nil {
				return ExitUnknown, fmt.Errorf("%w: exit status %q", ErrProtocol, payload)
			}
			return code, nil
		case frameRefused:
			return ExitUnknown, fmt.Errorf("%w: server refused: %s", ErrProtocol, payload)
		default:
			return ExitUnknown, fmt.Errorf("%w: unknown frame kind %q", ErrProtocol, kind)
		}
	}
}

// refusal turns a non-200 answer into an error.
func refusal(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	msg := strings.TrimSpace(string(b))
	if resp.StatusCode == http.StatusConflict {
		msg = strings.TrimPrefix(msg, ErrWrongLibrary.Error()+": ")
		return fmt.Errorf("%w: %s", ErrWrongLibrary, msg)
	}
	return fmt.Errorf("%w: server refused (%s): %s", ErrProtocol, resp.Status, msg)
}

// unwrapURLError drops net/http's "Get URL:" prefix: the URL is not real.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Call dials the server at path for library and runs one command; see Dial
// and Client.Run.
func Call(ctx context.Context, path, library string, args []string, cwd string, stdout, stderr io.Writer) (int, error) {
	c, err := Dial(ctx, path, library)
	if err != nil {
		return ExitUnknown, err
	}
	return c.Run(ctx, args, cwd, stdout, stderr)
}
