package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpvec/mcpvec/store"
)

// The must-show of issue 39: a backup taken while 16 MCP clients search and
// an ingest writes. Phase "before" runs the searches and the ingest; phase
// "during" adds backups back to back; a control phase between them runs
// `mcpvec info` back to back instead. The searches see no error; every
// copy passes check and holds every document whose ingest had returned
// before the backup command started. MCPVEC_BACKUP_LOAD_SECONDS lengthens
// the phases (default 1 s each) and MCPVEC_BACKUP_LOAD_DOCS the library
// (default 60 documents of ~24 KB) for docs/benchmarks/backup.md; the
// defaults show the behaviour in `make test`, the figures need the knobs.
// Each phase's side loop starts its first command at once and the phase
// waits for it, so even a short phase takes at least one backup.
const loadClients = 16

func TestBackupUnderLoad(t *testing.T) {
	t.Parallel()
	phase := time.Duration(envOr("MCPVEC_BACKUP_LOAD_SECONDS", 1)) * time.Second
	db, dir := loadLibrary(t, envOr("MCPVEC_BACKUP_LOAD_DOCS", 60))
	srv := serveProc(t, db, nil)
	clients := make([]*client.Client, loadClients)
	for i := range clients {
		clients[i] = connect(t, srv.url, "")
	}
	ing := startIngestLoop(t, db, filepath.Join(dir, "new"))
	before := searchPhase(clients, phase, nil)
	// The control runs commands through the admin channel back to back as
	// the backups do, without copying: what process starts cost the load.
	control := searchPhase(clients, phase, func(stop <-chan struct{}) {
		for i := 0; i < 50; i++ {
			select {
			case <-stop:
				return
			default:
			}
			mustRun(t, db, "info")
		}
	})
	var backups []loadBackup
	during := searchPhase(clients, phase, func(stop <-chan struct{}) {
		for i := 0; i < 50; i++ { // bounded: 50 backups at most
			select {
			case <-stop:
				return
			default:
			}
			backups = append(backups, takeBackup(t, db, filepath.Join(dir, fmt.Sprintf("b%02d.db", i)), ing.acked()))
		}
	})
	ing.stop()
	if before.errors+control.errors+during.errors > 0 {
		t.Errorf("searches failed: %d before, %d in the control, %d during the backups (first: %v %v %v)",
			before.errors, control.errors, during.errors, before.first, control.first, during.first)
	}
	if len(backups) == 0 {
		t.Fatal("no backup finished during the phase")
	}
	verifyBackups(t, backups)
	took := make([]time.Duration, len(backups))
	for i, b := range backups {
		took[i] = b.took
	}
	t.Logf("library %s; %d backups, duration p50 %v max %v; ingest acknowledged %d documents in all",
		fileSize(db), len(backups), pct(took, 50), pct(took, 100), len(ing.acked()))
	for _, p := range []struct {
		name string
		r    phaseResult
	}{{"before", before}, {"control (info back to back)", control}, {"during backups", during}} {
		t.Logf("searches %s: %d, p50 %v, p99 %v", p.name, len(p.r.lat), pct(p.r.lat, 50), pct(p.r.lat, 99))
	}
}

func envOr(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// loadLibrary ingests n documents of ~24 KB of varied text.
func loadLibrary(t *testing.T, n int) (db, dir string) {
	dir, db = tempLib(t)
	docs := filepath.Join(dir, "docs")
	os.Mkdir(docs, 0o755)
	os.Mkdir(filepath.Join(dir, "new"), 0o755)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		writeFile(t, filepath.Join(docs, fmt.Sprintf("d%04d.txt", i)), loadText(r, i, 24<<10))
	}
	mustRun(t, db, "ingest", docs)
	return db, dir
}

var loadWords = strings.Fields("lighthouse keeper wick lantern harbour storm tide ledger beacon rope gull cliff ship fog bell oil brass signal night dawn coast reef chart pilot")

// loadText returns about size bytes of sentences drawn from loadWords.
func loadText(r *rand.Rand, i, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Document %d.\n\n", i)
	for b.Len() < size {
		for range 12 {
			b.WriteString(loadWords[r.IntN(len(loadWords))] + " ")
		}
		b.WriteString(strconv.Itoa(r.IntN(1000)) + ".\n")
		if r.IntN(8) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// phaseResult is one phase's search latencies and errors.
type phaseResult struct {
	lat    []time.Duration
	errors int
	first  error
}

// searchPhase runs searches on every client for d (each client one at a
// time) while side runs, if given; side is told to stop when d is over and
// the phase waits for it.
func searchPhase(clients []*client.Client, d time.Duration, side func(stop <-chan struct{})) phaseResult {
	var (
		mu  sync.Mutex
		res phaseResult
		wg  sync.WaitGroup
	)
	stop := make(chan struct{})
	for i, c := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for n := 0; n < 100000; n++ { // bounded in count as well as time
				select {
				case <-stop:
					return
				default:
				}
				q := loadWords[r.IntN(len(loadWords))] + " " + loadWords[r.IntN(len(loadWords))]
				took, err := timedSearch(c, q)
				mu.Lock()
				res.lat = append(res.lat, took)
				if err != nil {
					if res.errors++; res.first == nil {
						res.first = err
					}
				}
				mu.Unlock()
			}
		})
	}
	sideDone := make(chan struct{})
	go func() {
		defer close(sideDone)
		if side != nil {
			side(stop)
		}
	}()
	time.Sleep(d)
	close(stop)
	wg.Wait()
	<-sideDone
	return res
}

func timedSearch(c *client.Client, q string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": q}
	start := time.Now()
	res, err := c.CallTool(ctx, req)
	took := time.Since(start)
	if err == nil && (res.IsError || len(res.Content) == 0) {
		err = fmt.Errorf("search %q: tool error %+v", q, res.Content)
	}
	return took, err
}

// ingestLoop ingests one new document at a time, each by its own
// `mcpvec ingest` (handed to the server), and records the ids of those
// acknowledged (the command returned 0).
type ingestLoop struct {
	mu   sync.Mutex
	ids  []string
	quit atomic.Bool
	done chan struct{}
}

func startIngestLoop(t *testing.T, db, dir string) *ingestLoop {
	l := &ingestLoop{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		r := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 1000 && !l.quit.Load(); i++ { // bounded
			p := filepath.Join(dir, fmt.Sprintf("n%04d.txt", i))
			os.WriteFile(p, []byte(loadText(r, 10000+i, 24<<10)), 0o644)
			res := runChild(t, db, nil, time.Minute, "ingest", p)
			if res.code != 0 {
				t.Errorf("ingest %s: %+v", p, res)
				return
			}
			l.mu.Lock()
			l.ids = append(l.ids, p)
			l.mu.Unlock()
		}
	}()
	return l
}

// acked returns the source paths of the documents acknowledged so far.
func (l *ingestLoop) acked() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ids)
}

func (l *ingestLoop) stop() { l.quit.Store(true); <-l.done }

// loadBackup is one backup of the run: where, what had been acknowledged
// when its command started, and how long the server took to write it.
type loadBackup struct {
	path  string
	acked []string
	took  time.Duration
}

var backupTook = regexp.MustCompile(` in ([0-9.]+[µmn]?s);`)

func takeBackup(t *testing.T, db, path string, acked []string) loadBackup {
	out := mustRun(t, db, "backup", "--no-check", path)
	m := backupTook.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("backup summary: %s", out)
	}
	took, _ := time.ParseDuration(m[1])
	return loadBackup{path: path, acked: acked, took: took}
}

// verifyBackups checks the last copy fully (mcpvec check) and every copy's
// store, and that each holds what was acknowledged before it began.
func verifyBackups(t *testing.T, backups []loadBackup) {
	last := backups[len(backups)-1].path
	if out := mustRun(t, last, "check"); !strings.Contains(out, ": ok") {
		t.Errorf("check of %s: %s", last, out)
	}
	for _, b := range backups {
		db, err := store.Open(b.path, &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Check(); err != nil {
			t.Errorf("%s: %v", b.path, err)
		}
		for _, p := range b.acked {
			if _, err := db.DocumentByPath(p); err != nil {
				t.Errorf("%s lacks %s, acknowledged before the backup began: %v", b.path, p, err)
			}
		}
		db.Close()
	}
}

// pct returns the p-th percentile (nearest rank) of ds.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p+99)/100-1)].Round(100 * time.Microsecond)
}

func fileSize(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
}
