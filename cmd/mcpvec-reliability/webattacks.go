package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// Issue 35's attacks on the web page and the transports, against a server
// exposed with a token (--token, --public-url), as a tunnel serves it: slow
// bodies before sign-in, anonymous uploads, unread SSE streams and an
// initialize flood around a real client.

const webToken = "reliability-token-0123456789abcdef"

// webFigures is what the web attacks measured.
type webFigures struct {
	SlowConns, SlowFDs    int           // slow anonymous bodies sent; descriptors the server held for them
	SlowMCP               time.Duration // a real client's initialize meanwhile
	SlowMCPStatus         int
	Uploads               int   // anonymous uploads sent at once
	UploadMiB             int   // size of each
	UploadSent            int64 // most bytes one of them got to send
	UploadTemp, UploadRSS int64 // peak temporary bytes on disk, peak RSS in the phase
	SSEStreams            int
	SSEAccepted           int   // median answers an unread stream accepted
	SSERSS, SSEKernel     int64 // RSS and kernel TCP memory with the streams open (the latter host-wide, a delta)
	Inits, Calls, Failed  int   // initializes flooded; a real client's calls; those that failed
	Problems              []string
}

// webAttacks serves dir's library exposed with a token and runs the
// attacks, each bounded in count and time.
func webAttacks(ctx context.Context, c config, bin, dir string, out io.Writer) (*webFigures, error) {
	tmp := filepath.Join(dir, "webtmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, err
	}
	env := append(childEnv(dir), "TMPDIR="+tmp)
	p, endpoint, err := childproc.StartServe(ctx, bin, env, 60*time.Second, "--token", webToken, "--public-url", "https://mcpvec-reliability.example")
	if err != nil {
		return nil, err
	}
	defer p.Stop()
	base := strings.TrimSuffix(endpoint, "/mcp")
	w := &webFigures{}
	pid := p.Pid()
	steps := []struct {
		name string
		fn   func() error
	}{
		{"slow", func() error { return w.slowBodies(ctx, base, pid, c.WebSlow) }},
		{"uploads", func() error {
			return w.anonymousUploads(ctx, base, pid, []string{tmp, filepath.Join(dir, "library.db.uploads")}, c.WebUploadMiB)
		}},
		{"sse", func() error { return w.unreadStreams(ctx, base, pid, c.WebSSE) }},
		{"inits", func() error { return w.initFlood(ctx, base, c.WebInits) }},
	}
	for _, s := range steps {
		if err := s.fn(); err != nil {
			return w, fmt.Errorf("web %s: %w\nserver stderr (tail):\n%s", s.name, err, childproc.Tail(p.Stderr.String(), 2000))
		}
		fmt.Fprintf(out, "  web %-7s done\n", s.name)
	}
	return w, nil
}

// dialerFrom dials from the loopback address ip, another client than
// 127.0.0.1 to the server.
func dialerFrom(ip string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
}

// openFDs counts pid's open descriptors.
func openFDs(pid int) int {
	es, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(es)
}

// slowBodies opens n connections from 127.0.0.2 that send a sign-in
// form's headers and one byte of its body, then measures the descriptors
// the server holds and a real client's initialize from 127.0.0.1.
func (w *webFigures) slowBodies(ctx context.Context, base string, pid, n int) error {
	before := openFDs(pid)
	d := dialerFrom("127.0.0.2")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	addr := strings.TrimPrefix(base, "http://")
	for i := 0; i < n && ctx.Err() == nil; i++ {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			w.Problems = append(w.Problems, fmt.Sprintf("slow: dial %d: %v", i, err))
			break
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /ui/signin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ns")
	}
	w.SlowConns = len(conns)
	time.Sleep(2 * time.Second)
	w.SlowFDs = max(0, openFDs(pid)-before)
	start := time.Now()
	st, _, _, err := childproc.Post(ctx, &http.Client{Timeout: 60 * time.Second, Transport: bearer{}}, base+"/mcp", "", childproc.InitializeBody)
	w.SlowMCP, w.SlowMCPStatus = time.Since(start), st
	if err != nil || st != http.StatusOK {
		w.Problems = append(w.Problems, fmt.Sprintf("slow: a real client's initialize during %d slow bodies: %d %v", n, st, err))
	}
	return nil
}

// bearer adds the token to every request.
type bearer struct{}

func (bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+webToken)
	return http.DefaultTransport.RoundTrip(r)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// anonymousUploads sends four anonymous uploads of mib MiB at once, with
// the sign-in page's valid CSRF token, and samples RSS and the bytes of
// the temporary folders while they run.
func (w *webFigures) anonymousUploads(ctx context.Context, base string, pid int, dirs []string, mib int) error {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 5 * time.Minute}
	resp, err := c.Get(base + "/ui/signin")
	if err != nil {
		return err
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return fmt.Errorf("no csrf field on the sign-in page")
	}
	w.Uploads, w.UploadMiB = 4, mib
	stopMem := childproc.SampleMemory(pid, 50*time.Millisecond)
	stopDisk := sampleBytes(dirs, 50*time.Millisecond)
	var wg sync.WaitGroup
	var most atomic.Int64
	for range w.Uploads {
		wg.Go(func() {
			n := sendUpload(ctx, c, base+"/ui/upload", string(m[1]), int64(mib)<<20)
			for v := most.Load(); n > v && !most.CompareAndSwap(v, n); v = most.Load() {
			}
		})
	}
	wg.Wait()
	w.UploadRSS, w.UploadTemp, w.UploadSent = stopMem().RSS, stopDisk(), most.Load()
	return nil
}

// sendUpload streams a multipart upload of size bytes and returns the
// bytes the server let it send before answering.
func sendUpload(ctx context.Context, c *http.Client, u, csrf string, size int64) int64 {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	var sent atomic.Int64
	go func() {
		mw.WriteField("csrf", csrf)
		fw, err := mw.CreateFormFile("files", "big.txt")
		if err != nil {
			pw.CloseWithError(err)
			return
		}
		buf := make([]byte, 64<<10)
		for n := int64(0); n < size; n += int64(len(buf)) {
			if _, err := fw.Write(buf); err != nil {
				pw.CloseWithError(err)
				return
			}
			sent.Add(int64(len(buf)))
		}
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if resp, err := c.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	pr.CloseWithError(io.ErrClosedPipe)
	return sent.Load()
}

// sampleBytes samples the bytes of the files under dirs until stop, which
// returns the peak.
func sampleBytes(dirs []string, every time.Duration) (stop func() int64) {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			var n int64
			for _, d := range dirs {
				filepath.Walk(d, func(_ string, fi os.FileInfo, err error) error {
					if err == nil && fi.Mode().IsRegular() {
						n += fi.Size()
					}
					return nil
				})
			}
			peak.Store(max(peak.Load(), n))
			select {
			case <-done:
				return
			case <-time.After(every):
			}
		}
	})
	return func() int64 { close(done); wg.Wait(); return peak.Load() }
}

// kernelTCPMem is the host's TCP socket memory from /proc/net/sockstat.
func kernelTCPMem() int64 {
	b, _ := os.ReadFile("/proc/net/sockstat")
	for l := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(l, "TCP:"); ok {
			f := strings.Fields(rest)
			for i := 0; i+1 < len(f); i++ {
				if f[i] == "mem" {
					pages, _ := strconv.ParseInt(f[i+1], 10, 64)
					return pages * int64(os.Getpagesize())
				}
			}
		}
	}
	return 0
}

// unreadStreams opens n legacy SSE streams that are never read and posts
// search calls to each until one is refused (at most 300), then measures
// the server's RSS and the kernel's TCP memory with them all open.
func (w *webFigures) unreadStreams(ctx context.Context, base string, pid, n int) error {
	kernel := kernelTCPMem()
	w.SSEStreams = n
	var accepted []int
	var bodies []io.Closer
	defer func() {
		for _, b := range bodies {
			b.Close()
		}
	}()
	tr := &http.Transport{ReadBufferSize: 4 << 10}
	defer tr.CloseIdleConnections()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sse", nil)
		req.Header.Set("Authorization", "Bearer "+webToken)
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			return fmt.Errorf("open sse %d: %w", i, err)
		}
		bodies = append(bodies, resp.Body)
		if resp.StatusCode != http.StatusOK {
			accepted = append(accepted, 0)
			continue
		}
		endpoint, err := sseEndpoint(bufio.NewReaderSize(resp.Body, 512))
		if err != nil {
			return err
		}
		accepted = append(accepted, postUntilRefused(ctx, base+endpoint, 300))
	}
	w.SSERSS, _, _ = childproc.Memory(pid)
	w.SSEKernel = kernelTCPMem() - kernel
	slices.Sort(accepted)
	if len(accepted) > 0 {
		w.SSEAccepted = accepted[len(accepted)/2]
	}
	return nil
}

// postUntilRefused posts initialize and then search calls to an SSE
// message endpoint until one is not accepted, and returns how many were.
func postUntilRefused(ctx context.Context, u string, max int) int {
	c := &http.Client{Timeout: 30 * time.Second, Transport: bearer{}}
	for i := range max {
		body := childproc.InitializeBody
		if i > 0 {
			body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"cats home territory %d"}}}`, i+10, i)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return i
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			return i
		}
	}
	return max
}

// initFlood sends n initializes from 8 workers while a real client, which
// initialized before, makes a call after every 1,200 of them (more than the
// 1,000 sessions the server keeps).
func (w *webFigures) initFlood(ctx context.Context, base string, n int) error {
	c := &http.Client{Timeout: 30 * time.Second, Transport: bearer{}}
	st, sid, _, err := childproc.Post(ctx, c, base+"/mcp", "", childproc.InitializeBody)
	if err != nil || st != http.StatusOK {
		return fmt.Errorf("initialize: %d %v", st, err)
	}
	childproc.Post(ctx, c, base+"/mcp", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.Inits, w.Calls = n, n/1200
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n) && ctx.Err() == nil; i = next.Add(1) {
				childproc.Post(ctx, c, base+"/mcp", "", childproc.InitializeBody)
				if i%1200 == 0 {
					call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"cats"}}}`
					if st, _, _, err := childproc.Post(ctx, c, base+"/mcp", sid, call); err != nil || st != http.StatusOK {
						failed.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	if w.Failed = int(failed.Load()); w.Failed > 0 {
		w.Problems = append(w.Problems, fmt.Sprintf("inits: %d of %d calls of a real client failed during %d initializes", w.Failed, w.Calls, n))
	}
	return nil
}

func (w *webFigures) report(out io.Writer) {
	if w == nil {
		return
	}
	fmt.Fprintf(out, "web slow bodies: %d anonymous slow sign-in bodies held %d descriptors; a real initialize meanwhile took %s (status %d)\n",
		w.SlowConns, w.SlowFDs, w.SlowMCP.Round(time.Millisecond), w.SlowMCPStatus)
	fmt.Fprintf(out, "web uploads: %d anonymous %d MiB uploads at once: at most %d KiB sent before the answer, peak %d MiB of temporary files, peak RSS %d MB\n",
		w.Uploads, w.UploadMiB, w.UploadSent>>10, w.UploadTemp>>20, w.UploadRSS>>20)
	fmt.Fprintf(out, "web sse: %d unread streams accepted %d answers each (median); RSS %d MB, host TCP memory +%d MB with them open\n",
		w.SSEStreams, w.SSEAccepted, w.SSERSS>>20, w.SSEKernel>>20)
	fmt.Fprintf(out, "web inits: %d initializes; %d of %d calls of a real client failed\n", w.Inits, w.Failed, w.Calls)
	for _, p := range w.Problems {
		fmt.Fprintf(out, "  failed: %s\n", p)
	}
}
