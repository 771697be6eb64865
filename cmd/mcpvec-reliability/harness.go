package main

import (
	"github.com/mcpvec/mcpvec/cmd/internal/childproc"

	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// moduleRoot walks up from the working directory to the folder holding go.mod.
func moduleRoot() (string, error) {
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

// childEnv is the environment of every child: a private runtime dir keeps
// the admin socket apart from any other server on the machine.
func childEnv(dir string) []string {
	return append(childproc.Env(dir), "MCPVEC_DB="+filepath.Join(dir, "library.db"))
}

// makeLibrary ingests the demo PDF and one PDF of bigMiB into a new library.
func makeLibrary(ctx context.Context, bin, root, dir string, bigMiB int) error {
	big := filepath.Join(dir, "big.pdf")
	if err := os.WriteFile(big, bigPDF(bigMiB<<20), 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "ingest", filepath.Join(root, "testdata", "cats.pdf"), big)
	cmd.Env = childEnv(dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ingest: %w\n%s", err, out)
	}
	return os.Remove(big)
}

// bigMarker is a word only the big PDF contains, to find its link.
const bigMarker = "zanzibarquokka"

// bigPDF is a one-page PDF naming bigMarker, padded to about size bytes by an
// unreferenced stream of random bytes (incompressible, never parsed).
func bigPDF(size int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	content := "BT /F1 12 Tf 56 770 Td (The " + bigMarker + " report on reliability.) Tj ET"
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [4 0 R] /Count 1 >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	pad := make([]byte, max(size-b.Len()-400, 0))
	rand.Read(pad)
	offsets = append(offsets, b.Len())
	fmt.Fprintf(&b, "%d 0 obj\n<< /Length %d >>\nstream\n", len(offsets), len(pad))
	b.Write(pad)
	b.WriteString("\nendstream\nendobj\n")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// serverProc is a running `mcpvec serve`.
type serverProc struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	stderr *bytes.Buffer
	mu     sync.Mutex
}

// startServer runs `mcpvec serve` on 127.0.0.1:0 and waits for its URL.
func startServer(ctx context.Context, bin, dir string, extra ...string) (*serverProc, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...)...)
	cmd.Env = childEnv(dir)
	p := &serverProc{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = lockedWriter{p}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start serve: %w", err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutSuffix(strings.TrimSpace(sc.Text()), "/mcp"); ok && strings.HasPrefix(u, "http://127.0.0.1:") {
				found <- u
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case p.base = <-found:
		return p, nil
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, fmt.Errorf("serve printed no URL within 60s; stderr:\n%s", p.stderrText())
	}
}

type lockedWriter struct{ p *serverProc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	if w.p.stderr.Len() < 1<<20 {
		w.p.stderr.Write(b)
	}
	return len(b), nil
}

func (p *serverProc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// stop interrupts the server and waits for it (killing it after 10 s).
func (p *serverProc) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}
