// Command mcpvec-reliability is the reliability campaign for `mcpvec serve`
// and the CLI (issue 15): it builds the real binary, ingests an offline demo
// library (the cats PDF and one large PDF) into a temporary folder, serves
// it on 127.0.0.1:0 and drives bounded abuse over loopback while reading the
// server's memory from /proc/<pid>/status: sessions initialized and
// abandoned by the thousand, slow readers of a large original, a legacy SSE
// client that never reads its stream, and a fuzz pass of malformed tool
// arguments, JSON-RPC framing, oversized and deeply nested bodies and
// tampered document links. Then, on libraries of their own, it kills
// ingest, reindex, sync of a changing folder and serve (with a forwarded
// ingest under way) with SIGKILL at random moments, running `mcpvec check`
// after every kill, and fills a small tmpfs with ingest and rm (root only;
// skipped with a message otherwise). It prints the figures and exits 1 when
// the server's peak RSS (VmHWM) passes the bound (100 MB) or a check fails.
//
// Every loop is bounded in count and time; no traffic leaves 127.0.0.1.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcpvec/mcpvec/cmd/internal/childproc"
)

// config sizes one campaign run.
type config struct {
	Sessions   int           // streamable HTTP sessions initialized and abandoned
	Readers    int           // slow readers of the large original
	FileMiB    int           // size of the large original
	ReadFor    time.Duration // how long the slow readers read
	SSE        int           // search calls posted to an unread SSE stream
	BoundBytes int64         // peak RSS allowed
	Timeout    time.Duration // the whole run
	Kills      int           // SIGKILL rounds per operation (ingest, reindex, changing folder, serve)
	Fuzz       int           // malformed requests sent to the server
	DiskMiB    int           // size of the tmpfs filled by ingest (0: skip)
	// Issue 35's web and transport attacks (webattacks.go).
	WebSlow, WebUploadMiB, WebSSE, WebInits int
	WebOnly                                 bool // run only those
}

// fullSize is issue 15's campaign; shortSize is what `make test` runs.
var (
	fullSize = config{Sessions: 20000, Readers: 30, FileMiB: 50, ReadFor: 15 * time.Second, SSE: 5000, BoundBytes: 100 << 20, Timeout: 20 * time.Minute, Kills: 20, Fuzz: 3000, DiskMiB: 4,
		WebSlow: 2000, WebUploadMiB: 200, WebSSE: 60, WebInits: 48000}
	shortSize = config{Sessions: 2000, Readers: 5, FileMiB: 10, ReadFor: 3 * time.Second, SSE: 500, BoundBytes: 100 << 20, Timeout: 5 * time.Minute, Kills: 3, Fuzz: 300, DiskMiB: 4,
		WebSlow: 300, WebUploadMiB: 32, WebSSE: 10, WebInits: 6000}
)

// figures is what a run measured.
type figures struct {
	Requests, Errors   int64
	Sessions           int64
	FirstSessionStatus int   // tools/list on the oldest abandoned session
	LastSessionStatus  int   // tools/list on the newest
	SSERefused         int64 // message posts refused once the SSE client was cut off
	RSSStart, RSSEnd   int64
	Peak               int64 // VmHWM
	PhasePeak          map[string]int64
	Fuzz               *fuzzFigures
	Kills              *killFigures
	Disk               *diskFigures
	Web                *webFigures
	Bombs              *bombFigures
}

func main() {
	c := fullSize
	flag.IntVar(&c.Sessions, "sessions", c.Sessions, "streamable HTTP sessions to initialize and abandon")
	flag.IntVar(&c.Readers, "readers", c.Readers, "slow readers of the large original")
	flag.IntVar(&c.FileMiB, "file-mib", c.FileMiB, "size of the large original in MiB")
	flag.DurationVar(&c.ReadFor, "read-for", c.ReadFor, "how long the slow readers read")
	flag.IntVar(&c.SSE, "sse", c.SSE, "search calls posted to an SSE stream nobody reads")
	flag.IntVar(&c.Kills, "kills", c.Kills, "kill -9 rounds for each of ingest, reindex, changing folder and serve")
	flag.IntVar(&c.Fuzz, "fuzz", c.Fuzz, "malformed requests sent to the server")
	bound := flag.Int64("bound-mb", c.BoundBytes>>20, "peak server RSS allowed, in MB")
	short := flag.Bool("short", false, "the short form (what make test runs)")
	webOnly := flag.Bool("web-only", false, "run only issue 35's web and transport attacks")
	flag.Parse()
	if *short {
		c = shortSize
	}
	flag.Visit(func(fl *flag.Flag) { // explicit flags win over --short
		switch fl.Name {
		case "kills":
			c.Kills, _ = strconv.Atoi(fl.Value.String())
		case "fuzz":
			c.Fuzz, _ = strconv.Atoi(fl.Value.String())
		}
	})
	c.BoundBytes = *bound << 20
	c.WebOnly = *webOnly
	f, err := run(context.Background(), c, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpvec-reliability:", err)
		os.Exit(1)
	}
	if f.Peak > c.BoundBytes {
		fmt.Fprintf(os.Stderr, "mcpvec-reliability: peak RSS %d MB passes the bound of %d MB\n", f.Peak>>20, c.BoundBytes>>20)
		os.Exit(1)
	}
}

// run builds, ingests, serves and drives the load of c, printing progress
// and the figures to out.
func run(ctx context.Context, c config, out io.Writer) (*figures, error) {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	root, err := childproc.ModuleRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "mcpvec-reliability-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin, err := childproc.Build(ctx, root, dir)
	if err != nil {
		return nil, err
	}
	if err := makeLibrary(ctx, bin, root, dir, c.FileMiB); err != nil {
		return nil, err
	}
	if c.WebOnly {
		w, err := webAttacks(ctx, c, bin, dir, out)
		w.report(out)
		return &figures{Web: w}, err
	}
	srv, err := startServer(ctx, bin, filepath.Clean(dir))
	if err != nil {
		return nil, err
	}
	f, err := drive(ctx, c, srv, out)
	srv.Stop()
	if err != nil {
		return nil, fmt.Errorf("%w\nserver stderr (tail):\n%s", err, childproc.Tail(srv.Stderr.String(), 2000))
	}
	if f.Web, err = webAttacks(ctx, c, bin, dir, out); err != nil {
		return nil, err
	}
	if err := faults(ctx, c, bin, dir, f, out); err != nil {
		return nil, err
	}
	report(out, c, f)
	return f, nil
}

// faults runs the kill campaign and the full disk, each on a library of
// its own (the server of drive has stopped).
func faults(ctx context.Context, c config, bin, dir string, f *figures, out io.Writer) error {
	rng := rand.New(rand.NewSource(15))
	var err error
	if f.Kills, err = killCampaign(ctx, bin, dir, c.Kills, rng, out); err != nil {
		return fmt.Errorf("kill campaign: %w", err)
	}
	if c.DiskMiB > 0 {
		if f.Disk, err = fillDisk(ctx, bin, dir, c.DiskMiB, rng); err != nil {
			return fmt.Errorf("disk full: %w", err)
		}
	}
	if f.Bombs, err = bombs(ctx, bin, dir, out); err != nil {
		return fmt.Errorf("bombs: %w", err)
	}
	return nil
}

// drive runs the three phases against srv, sampling its memory throughout.
func drive(ctx context.Context, c config, srv *serverProc, out io.Writer) (*figures, error) {
	pid := srv.Pid()
	f := &figures{PhasePeak: map[string]int64{}}
	f.RSSStart, _, _ = childproc.Memory(pid)
	var t tally
	phase := func(name string, fn func() error) error {
		stop := childproc.SampleMemory(pid, 50*time.Millisecond)
		err := fn()
		f.PhasePeak[name] = max(f.PhasePeak[name], stop().RSS)
		fmt.Fprintf(out, "  %-9s done: peak RSS in phase %d MB\n", name, f.PhasePeak[name]>>20)
		return err
	}
	err := phase("sessions", func() error {
		first, last := abandonSessions(ctx, srv.base, c.Sessions, 8, &t)
		f.Sessions = int64(c.Sessions) - t.errors.Load()
		f.FirstSessionStatus = sessionStatus(ctx, srv.base, first)
		f.LastSessionStatus = sessionStatus(ctx, srv.base, last)
		return nil
	})
	if err == nil {
		err = phase("readers", func() error {
			link, err := docLink(ctx, srv.base)
			if err == nil {
				slowReaders(ctx, link, c.Readers, 64<<10, c.ReadFor, &t)
			}
			return err
		})
	}
	if err == nil {
		err = phase("sse", func() (err error) {
			f.SSERefused, err = unreadSSE(ctx, srv.base, c.SSE, &t)
			return err
		})
	}
	if err == nil {
		err = phase("fuzz", func() (err error) {
			f.Fuzz, err = fuzzServer(ctx, srv.base, c.Fuzz, rand.New(rand.NewSource(9)))
			return err
		})
	}
	f.Requests, f.Errors = t.requests.Load(), t.errors.Load()
	f.RSSEnd, f.Peak, _ = childproc.Memory(pid)
	select {
	case <-srv.Done():
		if err == nil {
			err = fmt.Errorf("server exited during the run")
		}
	default:
	}
	return f, err
}

func report(out io.Writer, c config, f *figures) {
	fmt.Fprintf(out, "sessions: %d initialized and abandoned; tools/list on the oldest → %d %s, on the newest → %d %s\n",
		f.Sessions, f.FirstSessionStatus, http.StatusText(f.FirstSessionStatus), f.LastSessionStatus, http.StatusText(f.LastSessionStatus))
	fmt.Fprintf(out, "readers: %d slow readers of a %d MiB original for %s\n", c.Readers, c.FileMiB, c.ReadFor)
	fmt.Fprintf(out, "sse: %d search calls posted to an unread stream, %d refused after the cut-off\n", c.SSE, f.SSERefused)
	fmt.Fprintf(out, "fuzz: %d malformed requests (tool arguments, JSON-RPC framing, oversized and deep bodies, document links), %d answered 5xx, %d dropped\n",
		f.Fuzz.Requests, f.Fuzz.ServerErrors, f.Fuzz.Transport)
	for _, s := range append(f.Fuzz.Failed, f.Kills.Failed...) {
		fmt.Fprintf(out, "  failed: %s\n", s)
	}
	fmt.Fprintf(out, "kills: %d (kill -9 of ingest, reindex, sync of a changing folder, serve; %d more rounds finished before the kill), %d checks (%d with no library yet), %d failed\n",
		f.Kills.Kills, f.Kills.Finished, f.Kills.Checks, f.Kills.Unborn, f.Kills.CheckFailures)
	f.Disk.report(out)
	f.Web.report(out)
	f.Bombs.report(out)
	fmt.Fprintf(out, "TOTAL requests %d, sessions %d, kills %d, faults %d, errors %d, peak RSS (VmHWM) %d MB, bound %d MB\n",
		f.Requests+int64(f.Fuzz.Requests), f.Sessions, f.Kills.Kills, f.faultCount(), f.errorCount(), f.Peak>>20, c.BoundBytes>>20)
	fmt.Fprintf(out, "RSS start %d MB, end %d MB\n", f.RSSStart>>20, f.RSSEnd>>20)
}

// faultCount is every fault injected: kills, malformed requests, the
// full disk and the bombs.
func (f *figures) faultCount() int {
	n := f.Kills.Kills + f.Fuzz.Requests
	if f.Disk != nil {
		n += f.Disk.Full
	}
	if f.Bombs != nil {
		n += len(f.Bombs.Runs)
	}
	return n
}

// errorCount is every failure: failed load requests, 5xx or dropped fuzz
// requests, libraries failing check.
func (f *figures) errorCount() int64 {
	n := f.Errors + int64(f.Fuzz.ServerErrors+f.Fuzz.Transport+f.Kills.CheckFailures)
	if f.Disk != nil {
		n += int64(f.Disk.CheckFailures)
	}
	if f.Web != nil {
		n += int64(len(f.Web.Problems))
	}
	if f.Bombs != nil {
		n += int64(f.Bombs.failures())
	}
	return n
}
