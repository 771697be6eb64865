package pdf

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ledongthuc/pdf"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
)

// WorkerEnv is set to "1" in the environment of every fallback worker the
// readers start, so a test binary can recognise that it was re-run as
// the worker.
const WorkerEnv = "MCPVEC_EXTRACT_WORKER"

// maxWorkerOutput bounds what the parent reads from a worker.
const maxWorkerOutput = 512 << 20

type workerRequest struct {
	Data []byte
}

type workerResponse struct {
	Title string
	Pages []string
	Err   string // non-empty when the reader failed; Pages is then empty
}

// RunWorker is the fallback worker's main: it reads one gob-encoded request
// (the PDF bytes) from r, extracts the text of every page with
// github.com/ledongthuc/pdf, writes one gob-encoded response to w and
// returns. A reader failure or panic is reported inside the response; the
// returned error is only for a broken request or an unwritable w. While it
// runs, os.Stdout points at os.Stderr so that stray prints from the PDF
// library cannot corrupt the response written to w. RunWorker is meant to
// be the whole life of a short-lived process and is not safe for concurrent
// use.
func RunWorker(r io.Reader, w io.Writer) error {
	var req workerRequest
	if err := gob.NewDecoder(r).Decode(&req); err != nil {
		return fmt.Errorf("read worker request: %w", err)
	}
	stdout := os.Stdout
	os.Stdout = os.Stderr
	resp := fallbackExtract(req.Data)
	os.Stdout = stdout
	if err := gob.NewEncoder(w).Encode(&resp); err != nil {
		return fmt.Errorf("write worker response: %w", err)
	}
	return nil
}

// fallbackExtract reads every page with ledongthuc/pdf, recovering panics
// per page so one bad page does not lose the document.
func fallbackExtract(data []byte) (resp workerResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = workerResponse{Err: fmt.Sprintf("panic: %v", r)}
		}
	}()
	rd, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return workerResponse{Err: err.Error()}
	}
	n := rd.NumPage()
	resp.Title = metaTitle(rd)
	resp.Pages = make([]string, n)
	for i := range resp.Pages {
		resp.Pages[i] = fallbackPage(rd, i+1)
	}
	return resp
}

func metaTitle(rd *pdf.Reader) (title string) {
	defer func() { _ = recover() }()
	return rd.Trailer().Key("Info").Key("Title").Text()
}

// fallbackPage lays out one page's glyphs in content order, starting a new
// line when the baseline moves and a space at a gap wider than a fraction of
// the font size; the library's own GetPlainText glues words together.
func fallbackPage(rd *pdf.Reader, num int) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = ""
		}
	}()
	p := rd.Page(num)
	if p.V.IsNull() {
		return ""
	}
	var b strings.Builder
	var prev *pdf.Text
	glyphs := p.Content().Text
	for i := range glyphs {
		t := &glyphs[i]
		if prev != nil {
			size := math.Max(math.Max(t.FontSize, prev.FontSize), 1)
			switch gap := t.X - (prev.X + prev.W); {
			case math.Abs(t.Y-prev.Y) > size*0.5:
				b.WriteByte('\n')
			case gap > size*0.15 || gap < -size*2:
				b.WriteByte(' ')
			}
		}
		b.WriteString(t.S)
		prev = t
	}
	return b.String()
}

// Fallback extracts data with the fallback reader (ledongthuc/pdf) in a
// worker process started from cfg.WorkerCommand, killing it when ctx ends,
// when cfg.DocTimeout passes (ErrTimeout), or when its resident memory
// exceeds cfg.MemoryLimit (ErrMalformed); a crash or a reader failure is
// ErrMalformed. Fallback is safe for concurrent use.
func Fallback(ctx context.Context, cfg Config, data []byte) (*core.Document, error) {
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(&workerRequest{Data: data}); err != nil {
		return nil, fmt.Errorf("encode worker request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.DocTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.WorkerCommand[0], cfg.WorkerCommand[1:]...)
	cmd.Env = append(os.Environ(), WorkerEnv+"=1", "GOMEMLIMIT="+strconv.FormatInt(cfg.MemoryLimit/2, 10))
	cmd.Stdin = &in
	out := &capBuffer{max: maxWorkerOutput}
	cmd.Stdout = out
	cmd.Stderr = slogWriter{}
	cmd.WaitDelay = time.Second
	release := tieToParent(cmd)
	defer release()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	overMem := make(chan struct{})
	stop := watchMemory(cmd.Process, cfg.MemoryLimit, overMem)
	err := cmd.Wait()
	close(stop)
	select {
	case <-overMem:
		return nil, fmt.Errorf("%w: worker exceeded memory limit of %d MiB", core.ErrMalformed, cfg.MemoryLimit>>20)
	default:
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("%w: worker took over %s", core.ErrTimeout, cfg.DocTimeout)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("worker: %w", ctx.Err())
	case err != nil:
		return nil, fmt.Errorf("%w: worker: %w", core.ErrMalformed, err)
	}
	return decodeWorkerResponse(out.Bytes())
}

func decodeWorkerResponse(b []byte) (*core.Document, error) {
	var resp workerResponse
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&resp); err != nil {
		return nil, fmt.Errorf("%w: read worker response: %w", core.ErrMalformed, err)
	}
	if resp.Err != "" {
		return nil, fmt.Errorf("%w: %s", core.ErrMalformed, core.OneLine(resp.Err))
	}
	doc := &core.Document{MediaType: core.TypePDF, Title: core.CleanTitle(resp.Title), Pages: resp.Pages}
	for i, p := range doc.Pages {
		doc.Pages[i] = core.CleanText(p)
	}
	if len(doc.Pages) == 0 {
		return nil, fmt.Errorf("%w: no pages", core.ErrMalformed)
	}
	return doc, nil
}

// watchMemory kills p when its resident set exceeds limit bytes, closing
// over. It polls /proc (Linux); elsewhere it watches nothing.
func watchMemory(p *os.Process, limit int64, over chan<- struct{}) chan<- struct{} {
	stop := make(chan struct{})
	status := "/proc/" + strconv.Itoa(p.Pid) + "/status"
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			rss, err := residentBytes(status)
			if err != nil {
				return
			}
			if rss > limit {
				close(over)
				_ = p.Kill()
				return
			}
		}
	}()
	return stop
}

// residentBytes reads VmRSS from a /proc/PID/status file.
func residentBytes(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS")
}

// capBuffer is a bytes.Buffer that refuses to grow beyond max bytes.
type capBuffer struct {
	bytes.Buffer
	max int
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		return 0, errors.New("worker output too large")
	}
	return c.Buffer.Write(p)
}
