package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/mcpvec/mcpvec/ingest/extract/internal/core"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/text/unicode/norm"
)

// Engine is a pool of at most Config.MaxInstances pdfium WebAssembly
// instances sharing one compiled module. It is safe for concurrent use; a
// call waits for a free instance or for its context.
type Engine struct {
	pool  pdfium.Pool
	cache wazero.CompilationCache
}

// NewEngine compiles pdfium (or loads it from cfg.CacheDir) and starts the
// pool; it fails only when the WebAssembly runtime cannot start.
func NewEngine(cfg Config) (*Engine, error) {
	start := time.Now()
	cache := compilationCache(cfg.CacheDir)
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCompilationCache(cache).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(min(cfg.MemoryLimit>>16, 65536)))
	pool, err := webassembly.Init(webassembly.Config{
		Context:       context.Background(), // the pool outlives any one call
		MaxTotal:      cfg.MaxInstances,
		MaxIdle:       cfg.MaxInstances,
		FSConfig:      wazero.NewFSConfig(), // no host files: documents come as bytes
		RuntimeConfig: rc,
		Stdout:        io.Discard,
		ReuseWorkers:  true,
		Stderr:        slogWriter{},
	})
	if err != nil {
		cache.Close(context.Background())
		return nil, fmt.Errorf("start pdfium: %w", err)
	}
	slog.Debug("pdfium started", "took", time.Since(start), "cache", cfg.CacheDir)
	return &Engine{pool: pool, cache: cache}, nil
}

// compilationCache keeps wazero's compiled code in dir, or in memory when
// dir is unusable.
func compilationCache(dir string) wazero.CompilationCache {
	if dir != "" {
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err == nil {
			return c
		}
		slog.Warn("wasm compilation cache unavailable; pdfium will be compiled on every start", "dir", dir, "err", err)
	}
	return wazero.NewCompilationCache()
}

// Close releases the instances and the compilation cache. Calls running
// on them fail; Close must be called once.
func (p *Engine) Close() error {
	err := p.pool.Close()
	return errors.Join(err, p.cache.Close(context.Background()))
}

// slogWriter forwards pdfium's stderr to slog at debug level.
type slogWriter struct{}

func (slogWriter) Write(b []byte) (int, error) {
	slog.Debug("pdfium", "stderr", strings.TrimSpace(string(b)))
	return len(b), nil
}

// openError marks a document pdfium could not open for reasons other than
// encryption; the fallback reader may still manage.
type openError struct{ err error }

func (o *openError) Error() string { return "pdfium: " + trimCode(o.err.Error()) }
func (o *openError) Unwrap() error { return o.err }

// trimCode drops the numeric prefix of pdfium's error messages
// ("3: incorrect format").
func trimCode(msg string) string {
	if _, rest, ok := strings.Cut(msg, ": "); ok && rest != "" && msg[0] >= '0' && msg[0] <= '9' {
		return rest
	}
	return msg
}

// session is one pdfium instance working on one document, with a watchdog
// that kills the instance when a deadline passes or ctx ends.
type session struct {
	inst   pdfium.Pdfium
	mu     sync.Mutex
	killed bool
	done   bool
	cause  error

	pageErrors int // pages pdfium failed to read

	ocr   OCRMode        // "" when pages are not rendered for OCR
	dpi   int            // render resolution for OCR
	scans map[int][]byte // page index to rendered PNG, for pages to OCR

	budget *core.Budget // the document's text, charged page by page
}

// retireSize is the input size above which a pdfium instance is destroyed
// after use instead of being reused, to hand its grown memory back.
const retireSize = 16 << 20

// kill stops the instance; the pending pdfium call returns an error.
func (s *session) kill(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.killed || s.done {
		return
	}
	s.killed, s.cause = true, cause
	if err := s.inst.Kill(); err != nil {
		slog.Debug("kill pdfium instance", "err", err)
	}
}

// finish ends the session, returning the reason it was killed, if it was.
// The instance goes back to the pool for the next document unless retire
// is set: then it is destroyed, so that memory grown for a large file or
// state left by a failure does not outlive this document.
func (s *session) finish(retire bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	if s.killed {
		return s.cause
	}
	release := s.inst.Close
	if retire {
		release = s.inst.Kill
	}
	if err := release(); err != nil {
		slog.Debug("release pdfium instance", "err", err)
	}
	return nil
}

// extract reads data in one pdfium instance. With an OCR mode, pages that
// need OCR are also rendered and returned in scans.
func (p *Engine) extract(ctx context.Context, data []byte, cfg Config, ocr OCRMode, b *core.Budget) (doc *core.Document, scans map[int][]byte, err error) {
	inst, err := p.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("wait for pdfium: %w", ctx.Err())
		}
		return nil, nil, fmt.Errorf("get pdfium instance: %w", err)
	}
	s := &session{inst: inst, ocr: ocr, dpi: cfg.OCRDPI, scans: map[int][]byte{}, budget: b}
	timeout := fmt.Errorf("%w: document took over %s", core.ErrTimeout, cfg.DocTimeout)
	docTimer := time.AfterFunc(cfg.DocTimeout, func() { s.kill(timeout) })
	stopCtx := context.AfterFunc(ctx, func() { s.kill(fmt.Errorf("extract: %w", ctx.Err())) })
	defer func() {
		docTimer.Stop()
		stopCtx()
		if r := recover(); r != nil {
			doc, scans, err = nil, nil, fmt.Errorf("%w: pdfium: %v", core.ErrMalformed, r)
		}
		retire := err != nil || s.pageErrors > 0 || len(data) > retireSize
		if cause := s.finish(retire); cause != nil {
			doc, scans, err = nil, nil, cause
		}
	}()
	doc, err = s.read(data, cfg.Password, cfg.PageTimeout)
	return doc, s.scans, err
}

// read opens the document and reads its title, the text of every page and
// its outline.
func (s *session) read(data []byte, password string, pageTimeout time.Duration) (*core.Document, error) {
	opened, err := s.open(data, password)
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return nil, core.ErrEncrypted
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return nil, fmt.Errorf("%w (unsupported encryption)", core.ErrEncrypted)
	case err != nil:
		return nil, &openError{err}
	}
	d := opened.Document
	defer s.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d})
	n, err := s.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: d})
	if err != nil {
		return nil, fmt.Errorf("%w: page count: %w", core.ErrMalformed, err)
	}
	doc := &core.Document{MediaType: core.TypePDF, Pages: make([]string, n.PageCount)}
	if t, err := s.inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: d, Tag: "Title"}); err == nil {
		doc.Title = core.CleanTitle(t.Value)
	}
	if t, err := s.inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: d, Tag: "CreationDate"}); err == nil {
		doc.Created = core.ParsePDFDate(t.Value)
	}
	for i := range doc.Pages {
		timeout := fmt.Errorf("%w: page %d took over %s", core.ErrTimeout, i+1, pageTimeout)
		t := time.AfterFunc(pageTimeout, func() { s.kill(timeout) })
		text, err := s.pageText(d, i)
		if err != nil {
			t.Stop()
			s.pageErrors++
			slog.Debug("pdfium page", "page", i+1, "err", err)
			continue
		}
		if !s.budget.Take(len(text)) { // each page is read whole: check it before keeping it
			t.Stop()
			return nil, s.budget.Err()
		}
		doc.Pages[i] = core.CleanText(text)
		s.scan(d, i, doc.Pages[i])
		t.Stop()
	}
	if s.pageErrors > 0 && s.pageErrors == len(doc.Pages) {
		return nil, fmt.Errorf("%w: no page could be read", core.ErrMalformed)
	}
	doc.Headings = s.outline(d, len(doc.Pages))
	return doc, nil
}

// open opens the document with the user password; for AES-256 files
// (revision 6) whose password needs SASLprep, which pdfium leaves to the
// caller, it retries with the prepared password. When the password is
// refused it tries the empty one: one --password serves a folder where
// most encrypted files open without a password (only an owner password,
// permissions) and pdfium refuses a wrong password even for those.
func (s *session) open(data []byte, password string) (*responses.OpenDocument, error) {
	req := &requests.OpenDocument{File: &data}
	if password != "" {
		req.Password = &password
	}
	opened, err := s.inst.OpenDocument(req)
	if prepared := saslPrep(password); errors.Is(err, pdfiumerrors.ErrPassword) && prepared != password {
		req.Password = &prepared
		opened, err = s.inst.OpenDocument(req)
	}
	if errors.Is(err, pdfiumerrors.ErrPassword) && password != "" {
		req.Password = nil
		return s.inst.OpenDocument(req)
	}
	return opened, err
}

// saslPrep approximates RFC 4013 SASLprep as PDF 2.0 asks for revision 6
// passwords: characters mapped to nothing are removed, non-ASCII spaces
// become spaces, and the result is NFKC-normalised.
func saslPrep(pw string) string {
	pw = strings.Map(func(r rune) rune {
		switch {
		case r == '\u00ad' || r == '\u034f' || r == '\u1806' || (r >= '\u180b' && r <= '\u180d') ||
			(r >= '\u200b' && r <= '\u200d') || r == '\u2060' || (r >= '\ufe00' && r <= '\ufe0f') || r == '\ufeff':
			return -1
		case r > 0x7f && unicode.Is(unicode.Zs, r):
			return ' '
		}
		return r
	}, pw)
	return norm.NFKC.String(pw)
}

func (s *session) pageText(d references.FPDF_DOCUMENT, i int) (string, error) {
	page, err := s.inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: d, Index: i})
	if err != nil {
		return "", fmt.Errorf("load page: %w", err)
	}
	defer s.inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := s.inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", fmt.Errorf("load text: %w", err)
	}
	defer s.inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	cnt, err := s.inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || cnt.Count <= 0 {
		return "", err
	}
	txt, err := s.inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: cnt.Count})
	if err != nil {
		return "", fmt.Errorf("get text: %w", err)
	}
	return s.markParagraphs(tp.TextPage, txt.Text, cnt.Count), nil
}
