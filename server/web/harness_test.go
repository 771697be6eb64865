package web_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/server"
	"github.com/mcpvec/mcpvec/server/web"
	"github.com/mcpvec/mcpvec/store"
)

// TestMain lets the test binary serve as the PDF extraction worker.
func TestMain(m *testing.M) {
	if os.Getenv(extract.WorkerEnv) == "1" {
		if err := extract.RunWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const testToken = "owner-token-for-tests-0123456789"

// fixture is a running server with the web interface on a real library
// holding testdata/cats.pdf and otters.txt.
type fixture struct {
	URL  string
	Live *library.Live
	Act  *web.Activity
	Dir  string
	// Ingest runs files through the real pipeline into the library.
	Ingest ingestFunc
}

type fixtureOptions struct {
	Exposed    bool   // require sign-in (with testToken)
	Token      bool   // a loopback server with testToken, not otherwise exposed
	Passphrase string // an owner passphrase besides the token ("": none)
	MaxResults int    // search results a page (0: web's default)
	PublicURL  string // the server's public URL, as behind a tunnel ("": none)
}

// mustServe starts a server on 127.0.0.1:0; cleanup stops it and closes the
// library after checking both indexes hold every passage.
func mustServe(tb testing.TB, fo fixtureOptions) *fixture {
	tb.Helper()
	dir := tb.TempDir()
	db, err := store.Open(filepath.Join(dir, "library.db"), &store.Options{NoSync: true})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	emb := embed.NewHash(embed.DefaultHashConfig())
	if err := db.SetEmbedder(store.EmbedderInfo(emb.Identity())); err != nil {
		tb.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	lib, err := embedded.Open(context.Background(), db, emb, library.Options{Logger: quiet})
	if err != nil {
		tb.Fatalf("open library: %v", err)
	}
	f := &fixture{Live: library.NewLive(lib), Act: web.NewActivity(50), Dir: dir}
	ingestPaths := ingester(tb, emb, f.Live)
	f.Ingest = ingestPaths
	otters := filepath.Join(dir, "otters.txt")
	os.WriteFile(otters, []byte("Sea otters hold hands while they sleep so they do not drift apart.\n"), 0o600)
	if _, err := ingestPaths(context.Background(), []string{filepath.Join("..", "..", "testdata", "cats.pdf"), otters}); err != nil {
		tb.Fatalf("ingest fixtures: %v", err)
	}
	f.start(tb, db, fo, emb, ingestPaths, quiet)
	return f
}

type ingestFunc func(ctx context.Context, paths []string) (ingest.Summary, error)

// ingester runs the real ingest pipeline into the live library, as cmd does.
func ingester(tb testing.TB, emb *embed.Hash, live *library.Live) ingestFunc {
	cache := filepath.Join(os.TempDir(), "mcpvec-web-test-cache")
	return func(ctx context.Context, paths []string) (ingest.Summary, error) {
		ex, err := extract.New(ctx, extract.Options{CacheDir: cache, WorkerCommand: []string{os.Args[0]}, OCR: extract.OCRNever})
		if err != nil {
			return ingest.Summary{}, err
		}
		defer ex.Close()
		w := live.Current().BeginWrites(ctx, emb, emb.Identity(), 32, 1, time.Minute)
		sum, err := ingest.New(w, ex, w.Embedder(), ingest.Options{Workers: 1}).Run(ctx, paths)
		if ferr := w.Finish(ctx, err == nil); err == nil {
			err = ferr
		}
		return sum, err
	}
}

func (f *fixture) start(tb testing.TB, db *store.DB, fo fixtureOptions, emb *embed.Hash, ing ingestFunc, log *slog.Logger) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var srv *server.Server
	wo := web.Options{
		Library: f.Live, Activity: f.Act, Exposed: fo.Exposed, Logger: log, Version: "test",
		Link: func(r *http.Request, id string, page int, anchor string) string {
			return srv.DocURL(r, id, page, anchor)
		},
		Ingest: uploader(f.Dir, db, ing),
		Roots:  func() ([]string, error) { return []string{filepath.Join(f.Dir, "synced")}, nil },
		Resync: func(ctx context.Context, root string) (string, error) {
			sum, err := ing(ctx, []string{root})
			if err == nil && len(sum.Failed) > 0 {
				err = fmt.Errorf("%d files failed", len(sum.Failed))
			}
			return sum.String(), err
		},
		LibraryPath: db.Path(), Embedder: emb.Identity().String(), MaxResults: fo.MaxResults,
		UploadDir: filepath.Join(f.Dir, "incoming"),
	}
	so := server.Options{Addr: ln.Addr().String(), LinkKey: []byte("test-link-key-0123456789abcdef"), Observe: f.Act.Record, Logger: log, Version: "test",
		PublicURL: fo.PublicURL}
	wo.PublicURL = fo.PublicURL
	if fo.Exposed || fo.Token {
		wo.Token, so.Token = testToken, testToken
	}
	if pass := fo.Passphrase; pass != "" {
		wo.CheckOwner = func(_ *http.Request, got string) error {
			if got != pass {
				return errors.New("wrong passphrase")
			}
			return nil
		}
	}
	h, err := web.New(wo)
	if err != nil {
		tb.Fatal(err)
	}
	so.Web = h
	if srv, err = server.New(f.Live, so); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	f.URL = "http://" + ln.Addr().String()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("serve: %v", err)
		}
		st := f.Live.Current().IndexStats(ctx)
		if st.LexicalPassages != st.VectorPassages {
			tb.Errorf("index stats %+v: lexical and vector indexes differ", st)
		}
		if err := db.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
}

// uploader saves uploads in dir/uploads as cmd's does (web.SaveUploads),
// ingests them and tells what became of each.
func uploader(dir string, db *store.DB, ing ingestFunc) func(ctx context.Context, files []web.File) ([]web.Upload, error) {
	return func(ctx context.Context, files []web.File) ([]web.Upload, error) {
		up := filepath.Join(dir, "uploads")
		if err := os.MkdirAll(up, 0o700); err != nil {
			return nil, err
		}
		saved, err := web.SaveUploads(up, files)
		if err != nil {
			return nil, err
		}
		paths, ids := make([]string, len(saved)), make([]string, len(saved))
		before := make([]*store.Document, len(saved))
		for i, sv := range saved {
			paths[i] = sv.Path
			data, err := os.ReadFile(sv.Path)
			if err != nil {
				return nil, err
			}
			sha, _ := ingest.ContentHash(bytes.NewReader(data))
			ids[i] = sha[:16]
			before[i], _ = db.DocumentByPath(paths[i])
		}
		sum, err := ing(ctx, paths)
		if err != nil {
			return nil, err
		}
		reasons := map[string]string{}
		for _, fe := range sum.Failed {
			reasons[fe.Path] = fe.Err.Error()
		}
		out := make([]web.Upload, len(saved))
		for i, sv := range saved {
			out[i] = web.UploadOutcome(db, sv.Name, paths[i], ids[i], before[i], reasons[paths[i]])
			out[i].Note = sv.Note
		}
		return out, nil
	}
}
