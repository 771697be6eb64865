package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"time"
)

const (
	headerLibrary = "Mcpvec-Library"
	headerCommand = "Mcpvec-Command"
	streamType    = "application/vnd.mcpvec.admin-stream"
)

// runRequest is the body of POST /v1/run.
type runRequest struct {
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	Library string   `json:"library,omitempty"`
}

// hello is the body of a GET /v1/hello answer.
type hello struct {
	Library string `json:"library,omitempty"`
	PID     int    `json:"pid"`
	Holder  string `json:"holder,omitempty"`
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/hello", s.handleHello)
	mux.HandleFunc("POST /v1/run", s.handleRun)
	mux.HandleFunc("POST /v1/cancel/{id}", s.handleCancel)
	mux.HandleFunc("GET /v1/mcp", s.handleMCP)
	return mux
}

func (s *Server) handleHello(w http.ResponseWriter, r *http.Request) {
	if err := s.checkLibrary(r.Header.Get(headerLibrary)); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(hello{Library: s.libPath, PID: os.Getpid(), Holder: s.holder})
}

func (s *Server) handleCancel(w http.ResponseWriter, r *http.Request) {
	if !s.cancelCommand(r.PathValue("id")) {
		http.Error(w, "no such command", http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleRun serves one command: read the request, wait for the turn, run,
// stream the output, report the exit status.
func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	req, status, err := s.readRequest(w, r)
	if err != nil {
		s.log.Warn("admin request refused", "err", err)
		http.Error(w, err.Error(), status)
		return
	}
	ctx, cancel := context.WithCancel(r.Context()) // ends when the client hangs up
	defer cancel()
	defer context.AfterFunc(s.base, cancel)()
	id, forget := s.register(cancel)
	defer forget()
	w.Header().Set("Content-Type", streamType)
	w.Header().Set(headerCommand, id)
	w.WriteHeader(http.StatusOK)
	sw := &streamWriter{w: w, rc: http.NewResponseController(w), timeout: s.writeTimeout}
	turn := s.turn
	if s.beside != nil && s.beside(req.Args) {
		turn = s.besideTurn
	}
	if sw.rc.Flush() != nil || !s.waitTurn(ctx, sw, turn) {
		return
	}
	if !s.startRunner() {
		turn <- struct{}{}
		sw.send(frameRefused, "server is shutting down; the command did not run")
		return
	}
	out := newOutput()
	code := make(chan int, 1)
	go func() {
		defer s.wg.Done()
		defer func() { turn <- struct{}{} }()
		c := s.runSafely(ctx, req, out)
		out.stop()
		code <- c
	}()
	if err := out.pump(sw); err != nil {
		s.log.Warn("admin client stalled or gone; cancelling its command", "args", req.Args, "err", err)
		return
	}
	sw.send(frameExit, strconv.Itoa(<-code))
}

// readRequest reads and validates a run request within requestTimeout,
// returning the HTTP status for a refusal.
func (s *Server) readRequest(w http.ResponseWriter, r *http.Request) (runRequest, int, error) {
	var req runRequest
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Now().Add(requestTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
	// Cleared at once: the server's background read, which notices a
	// client hanging up, must not time out during a long command.
	rc.SetReadDeadline(time.Time{})
	if err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("read request: %w", err)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("decode request: %w", err)
	}
	switch {
	case len(req.Args) == 0:
		return req, http.StatusBadRequest, errors.New("empty command")
	case !filepath.IsAbs(req.Cwd):
		return req, http.StatusBadRequest, fmt.Errorf("cwd %q is not absolute", req.Cwd)
	}
	if err := s.checkLibrary(req.Library); err != nil {
		return req, http.StatusConflict, err
	}
	return req, 0, nil
}

// waitTurn blocks until no other command of its turn runs, telling the client it
// waits. It reports false when ctx ends first or the client is gone; a
// client queued when the server shuts down is told so.
func (s *Server) waitTurn(ctx context.Context, sw *streamWriter, turn chan struct{}) bool {
	select {
	case <-turn:
		return true
	default:
	}
	if sw.send(frameStderr, "mcpvec: waiting for another command on the server to finish\n") != nil {
		return false
	}
	select {
	case <-turn:
		return true
	case <-ctx.Done():
		if s.base.Err() != nil {
			sw.send(frameRefused, "server is shutting down; the command did not run")
		}
		return false
	}
}

// runSafely calls the Runner with streaming writers, turning a panic into
// ExitPanic.
func (s *Server) runSafely(ctx context.Context, req runRequest, out *output) (code int) {
	stdout, stderr := stream{out, frameStdout}, stream{out, frameStderr}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("admin command panicked", "args", req.Args, "panic", p, "stack", string(debug.Stack()))
			fmt.Fprintf(stderr, "mcpvec: internal error: %v\n", p)
			code = ExitPanic
		}
	}()
	start := time.Now()
	s.log.Info("admin command", "args", req.Args, "cwd", req.Cwd)
	code = s.run(ctx, req.Args, req.Cwd, stdout, stderr)
	s.log.Info("admin command done", "args", req.Args, "exit", code, "took", time.Since(start).Round(time.Millisecond))
	return code
}
