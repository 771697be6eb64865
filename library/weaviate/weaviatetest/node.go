package weaviatetest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Node is one weaviate-server process.
type Node struct {
	Name string
	Dir  string // data directory; weaviate.log beside it
	bin  string

	ports nodePorts
	quit  chan struct{} // closed by stopWaiting: waitReady gives up
	cmd   *exec.Cmd
	done  chan struct{} // closed when cmd exits
	err   error         // cmd.Wait's result, set before done closes
}

// Addr is the node's REST address, "127.0.0.1:port".
func (n *Node) Addr() string { return "127.0.0.1:" + strconv.Itoa(n.ports.http) }

// PIDs are the process ids of the running nodes (none for a nil Cluster).
func (c *Cluster) PIDs() []int {
	var out []int
	if c != nil {
		for _, n := range c.Nodes {
			if pid := n.PID(); pid != 0 {
				out = append(out, pid)
			}
		}
	}
	return out
}

// PID is the node's process id, 0 when it is not running.
func (n *Node) PID() int {
	if n.cmd == nil || n.cmd.Process == nil {
		return 0
	}
	return n.cmd.Process.Pid
}

func (n *Node) logPath() string { return n.Dir + ".log" }

func (n *Node) start(env []string) error {
	if n.cmd != nil {
		return fmt.Errorf("%s is already running", n.Name)
	}
	if err := os.MkdirAll(n.Dir, 0o755); err != nil {
		return err
	}
	log, err := os.OpenFile(n.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(n.bin, "--host", "127.0.0.1", "--port", strconv.Itoa(n.ports.http), "--scheme", "http")
	cmd.Env, cmd.Dir = env, filepath.Dir(n.Dir)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", n.Name, err)
	}
	n.cmd, n.done, n.quit = cmd, make(chan struct{}), make(chan struct{})
	go func(done chan struct{}) {
		n.err = cmd.Wait()
		log.Close()
		close(done)
	}(n.done)
	return nil
}

// waitReady polls /v1/.well-known/ready until it answers 200, the process
// exits, or timeout passes.
func (n *Node) waitReady(timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	url := "http://" + n.Addr() + "/v1/.well-known/ready"
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-n.done:
			return fmt.Errorf("%s exited before it was ready (%v); log:\n%s", n.Name, n.err, n.logTail(4000))
		case <-n.quit:
			return fmt.Errorf("%s: gave up waiting (another node failed)", n.Name)
		default:
		}
		if resp, err := client.Get(url); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after %v; log:\n%s", n.Name, timeout, n.logTail(4000))
}

// waitGossip waits until the node's memberlist port accepts connections.
func (n *Node) waitGossip(timeout time.Duration) error {
	addr := "127.0.0.1:" + strconv.Itoa(n.ports.gossip)
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		select {
		case <-n.done:
			return fmt.Errorf("%s exited while starting (%v); log:\n%s", n.Name, n.err, n.logTail(4000))
		default:
		}
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			return nil
		}
	}
	return fmt.Errorf("%s gossip port %s not open after %v; log:\n%s", n.Name, addr, timeout, n.logTail(4000))
}

// stopWaiting makes a waitReady in progress return.
func (n *Node) stopWaiting() {
	select {
	case <-n.quit:
	default:
		close(n.quit)
	}
}

// kill sends SIGKILL and waits (at most 30 s) for the exit. Killing a
// stopped node does nothing.
func (n *Node) kill() error {
	if n.cmd == nil {
		return nil
	}
	defer func() { n.cmd = nil }()
	if err := n.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-n.done:
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s did not exit within 30 s of SIGKILL", n.Name)
	}
}

// logTail returns the last max bytes of the node's log.
func (n *Node) logTail(max int64) string {
	f, err := os.Open(n.logPath())
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > max {
		f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
