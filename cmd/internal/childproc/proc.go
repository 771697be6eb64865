package childproc

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// bufferLimit is how much of a child's output a Buffer keeps: the last
// MiB, so that a server under hours of load cannot fill the harness's
// memory with its log.
const bufferLimit = 1 << 20

// Buffer collects a child's output: it is safe for the concurrent writes
// of the child's copying goroutine and the reads of the harness, and keeps
// only the last MiB or so.
type Buffer struct {
	mu sync.Mutex
	b  []byte
}

// Write appends p, dropping the oldest output beyond the limit; it never
// fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b = append(b.b, p...)
	if len(b.b) > 2*bufferLimit {
		b.b = append([]byte(nil), b.b[len(b.b)-bufferLimit:]...)
	}
	return len(p), nil
}

// String returns the output kept so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.b)
}

// Proc is a started child whose stdout and stderr are kept in Buffers and
// whose exit is awaited in the background. Its methods are safe for
// concurrent use.
type Proc struct {
	Cmd            *exec.Cmd
	Stdout, Stderr *Buffer
	done           chan struct{}
}

// Start starts cmd, which must not have Stdout or Stderr set, and waits for
// its exit in the background; the caller ends it with Stop or Kill.
func Start(cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{Cmd: cmd, Stdout: &Buffer{}, Stderr: &Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.Stdout, p.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	return p, nil
}

// Done is closed once the child has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Pid is the child's process id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Stop interrupts the child, as Ctrl-C would, and kills it if it has not
// exited ten seconds later; it returns once the child has exited.
func (p *Proc) Stop() {
	p.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.Kill()
	}
}

// Kill kills the child with SIGKILL and returns once it has exited.
func (p *Proc) Kill() {
	p.Cmd.Process.Kill()
	<-p.done
}

// StartServe runs `bin serve --addr 127.0.0.1:0 args...` with env (a later
// --addr in args wins) and returns once it has printed its local MCP
// endpoint (http://127.0.0.1:PORT/…/mcp), which it returns too. It gives up,
// stopping the child, after timeout or when ctx ends; a child that exits
// first is an error carrying the tail of its stderr.
func StartServe(ctx context.Context, bin string, env []string, timeout time.Duration, args ...string) (*Proc, string, error) {
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	p, err := Start(cmd)
	if err != nil {
		return nil, "", err
	}
	deadline := time.After(timeout)
	for {
		if u := localEndpoint(p.Stdout.String()); u != "" {
			return p, u, nil
		}
		select {
		case <-p.done:
			return nil, "", fmt.Errorf("serve exited before it listened: %s", Tail(p.Stderr.String(), 2000))
		case <-deadline:
			p.Stop()
			return nil, "", fmt.Errorf("serve printed no endpoint within %v: %s", timeout, Tail(p.Stderr.String(), 2000))
		case <-ctx.Done():
			p.Stop()
			return nil, "", ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// localEndpoint is the first line of serve's stdout that is a local MCP
// endpoint, trimmed, or "".
func localEndpoint(stdout string) string {
	for l := range strings.Lines(stdout) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "http://127.0.0.1:") && strings.HasSuffix(l, "/mcp") {
			return l
		}
	}
	return ""
}

// FreeAddr returns a loopback address (127.0.0.1:PORT) whose port was free
// a moment ago, for a server that must be told its address in advance.
func FreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Peak is the largest resident and anonymous memory sampled, in bytes.
type Peak struct{ RSS, Anon int64 }

// SampleMemory reads VmRSS and RssAnon of pid every interval until stop is
// called, which returns the largest of each.
func SampleMemory(pid int, interval time.Duration) (stop func() Peak) {
	var peak Peak
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if f, err := ProcFields(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				peak.RSS, peak.Anon = max(peak.RSS, f["VmRSS"]), max(peak.Anon, f["RssAnon"])
			}
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() Peak { close(quit); <-finished; return peak }
}
