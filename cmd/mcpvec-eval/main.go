// Command mcpvec-eval measures retrieval quality end to end: it ingests a
// collection from ../shared/eval through the real ingest pipeline into a
// temporary library, runs every query through the real query path in each
// mode, writes TREC runs and scores them with ../shared/eval/eval.py. With
// -longdoc it also bundles SciFact abstracts into multi-page PDFs and checks
// whether the top passages land on the page that holds a relevant abstract.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvec/mcpvec/ingest"
	"github.com/mcpvec/mcpvec/ingest/chunk"
	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/ingest/extract"
	"github.com/mcpvec/mcpvec/internal/evalset"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

type config struct {
	shared        string
	collections   string
	modes         string
	out           string
	chunkSizes    string
	overlap       int
	chunkTokens   int
	dims          int
	longdoc       bool
	moreLike      bool
	mltTerms      string
	outline       bool
	markdown      bool
	noHeadIndex   bool
	bookmarkOnly  bool
	rrfK          float64
	vecWeight     float64
	fusion        string
	weaviate      string
	settle        time.Duration
	sideBySide    string
	clients       int
	setups        string
	sideSettle    time.Duration
	manpages      string
	manpageLangs  string
	embedder      string
	corpusDims    int
	corpusExp     float64
	queryHalf     string
	sweep         string
	sweepKnown    string
	sweepPassages string
}

func main() {
	var c config
	flag.StringVar(&c.shared, "shared", "../shared", "folder holding eval/ (SciFact, Cranfield, eval.py)")
	flag.StringVar(&c.collections, "collections", "scifact,cranfield", "collections to run")
	flag.StringVar(&c.modes, "modes", "lexical,vector,hybrid", "search modes to score")
	flag.StringVar(&c.out, "out", "bin/eval", "folder for TREC runs and the report")
	flag.StringVar(&c.chunkSizes, "longdoc-chunks", "128,256,512", "chunk sizes (tokens) for the long-document check")
	flag.IntVar(&c.chunkTokens, "chunk-tokens", 0, "passage size for the collections (0: mcpvec's default)")
	flag.IntVar(&c.overlap, "overlap", -1, "chunk overlap in tokens (-1: default)")
	flag.IntVar(&c.dims, "dims", 0, "offline embedder dimensions (0: default)")
	flag.BoolVar(&c.longdoc, "longdoc", true, "run the long-document PDF check")
	flag.BoolVar(&c.moreLike, "more-like-this", false, "instead of the evaluation: the find-more-like-this check, SciFact documents of over 1,000 characters as queries for themselves (whole, and with half their sentences dropped), before (refused over 1,000 characters) and after long queries")
	flag.StringVar(&c.mltTerms, "more-like-this-terms", "", "with -more-like-this: compare these numbers of kept terms instead (e.g. 16,25,32,40)")
	flag.BoolVar(&c.outline, "longdoc-outline", true, "give the long-document PDFs a bookmark per abstract title")
	flag.BoolVar(&c.bookmarkOnly, "longdoc-bookmark-only", false, "put abstract titles only in the long-document PDFs' outline, not in their text (a section named by its heading alone)")
	flag.BoolVar(&c.noHeadIndex, "no-heading-index", false, "store passages without their heading paths and embed their text alone, to measure what indexing the headings adds to cutting at them")
	flag.BoolVar(&c.markdown, "markdown", false, "write collection documents as Markdown with the title as a # heading (else plain text, title as the first line)")
	flag.Float64Var(&c.rrfK, "rrf-k", 0, "RRF constant (0: library default)")
	flag.StringVar(&c.fusion, "fusion", "", "hybrid fusion: rrf or scores (\"\": library default)")
	flag.Float64Var(&c.vecWeight, "vector-weight", 0, "weight of the vector list in fusion (0: mcpvec's default for the embedder)")
	flag.StringVar(&c.weaviate, "weaviate", "", "also score each collection copied into this Weaviate, e.g. weaviate://127.0.0.1:8080 (a collection per run)")
	flag.DurationVar(&c.settle, "weaviate-settle", 3*time.Minute, "wait this long after the copy into Weaviate before the compared runs (its BM25 ranking drifts for a minute or two after a bulk write)")
	flag.StringVar(&c.sideBySide, "side-by-side", "", "instead of the evaluation: ingest this collection (e.g. scifact) with the mcpvec binary into an embedded library, a one-node and a three-node Weaviate (weaviate-server on PATH or in GOPATH/bin), serve each over HTTP and measure ingest, MCP search latency and nDCG@10")
	flag.IntVar(&c.clients, "clients", 16, "side-by-side: concurrent MCP clients of the second latency run")
	flag.DurationVar(&c.sideSettle, "side-by-side-settle", 15*time.Second, "side-by-side: wait this long after ingesting into Weaviate before searching (its nodes write memtables out after 5 s idle)")
	flag.StringVar(&c.setups, "setups", "0,1,3", "side-by-side: the libraries compared, by Weaviate node count (0: the embedded file)")
	flag.StringVar(&c.manpages, "manpages", "", "instead of the evaluation: the multilingual known-item evaluation on this folder, written by scripts/manpages-eval.sh")
	flag.StringVar(&c.manpageLangs, "manpages-langs", "", "with -manpages: only these languages (folder names, comma-separated)")
	flag.StringVar(&c.embedder, "embedder", "hash", "embedder of the vector and hybrid modes: hash (the offline default) or corpus (LSA fitted on the collection after ingest); with -side-by-side, the embedder the binary ingests with")
	flag.IntVar(&c.corpusDims, "corpus-dims", 0, "corpus embedder dimensions (0: its default)")
	flag.Float64Var(&c.corpusExp, "corpus-exponent", -1, "corpus embedder projection exponent of the singular values (-1: its default)")
	flag.StringVar(&c.queryHalf, "query-half", "", "score only every other query of each collection: odd (the 1st, 3rd, ...: a dev half to tune on) or even (the held-out half)")
	flag.StringVar(&c.sweep, "sweep", "", "instead of the evaluation: score a grid of BM25 parameters and English word rules on every collection at once (-collections, the long-document check at the default chunk size unless -longdoc=false, and -sweep-known), e.g. 'k1=0.9,1.2,1.5,2;b=0.5,0.75,0.9;analyzer=default,stop-short' (analyzers: default, or stop-short, stop-none, stem-plural, stem-none joined by +; other word rules are scored in lexical mode only)")
	flag.StringVar(&c.sweepKnown, "sweep-known", "", "with -sweep: known-item folders (pages/ and queries.tsv, as scripts/manpages-eval.sh writes them), comma-separated, scored by hit@10")
	flag.StringVar(&c.sweepPassages, "sweep-passages", "", "with -sweep: real-text known-item sets written by `mcpvec-realtext build -link` (lib/ and queries.tsv), comma-separated, scored by success@10 (the query's passage among the first 10 results)")
	flag.Parse()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	run := run
	if c.sideBySide != "" {
		run = sideBySide
	}
	if c.manpages != "" {
		run = manpagesEval
	}
	if c.moreLike {
		run = moreLikeThis
	}
	if c.sweep != "" {
		run = sweep
	}
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "mcpvec-eval:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	for _, coll := range strings.Split(c.collections, ",") {
		if coll == "" {
			continue
		}
		if err := evalCollection(ctx, c, coll); err != nil {
			return fmt.Errorf("%s: %w", coll, err)
		}
	}
	if c.longdoc {
		return longDoc(ctx, c)
	}
	return nil
}

type (
	corpusDoc = evalset.Doc
	query     = evalset.Query
)

// testLibrary is a temporary library with the offline embedder.
type testLibrary struct {
	db          *store.DB
	lib         *library.Library
	emb         embed.Embedder
	opts        library.Options
	dir         string
	noHeadIndex bool // see putWithoutHeadings
}

func openTestLibrary(ctx context.Context, c config, dir string) (*testLibrary, error) {
	db, err := store.Open(filepath.Join(dir, "library.db"), &store.Options{NoSync: true})
	if err != nil {
		return nil, err
	}
	emb, err := embed.Open(ctx, embed.Identity{Provider: embed.HashProvider, Dimensions: max(c.dims, 0)}, embed.Options{})
	if err != nil {
		return nil, err
	}
	if err := db.SetEmbedder(store.EmbedderInfo(emb.Identity())); err != nil {
		return nil, err
	}
	// What mcpvec uses for this embedder, but for the query words' idf
	// weight: the eval never weighed them (its hybrid and vector figures
	// are without it), and keeps it so.
	opts := library.EmbedderOptions(emb)
	opts.UseIDF = nil
	opts.MaxK, opts.RRFK = 100, c.rrfK
	if c.vecWeight != 0 {
		opts.VectorWeight = c.vecWeight
	}
	if c.fusion != "" {
		opts.Fusion = c.fusion
	}
	lib, err := embedded.Open(ctx, db, emb, opts)
	if err != nil {
		return nil, err
	}
	return &testLibrary{db: db, lib: lib, emb: emb, opts: opts, dir: dir, noHeadIndex: c.noHeadIndex}, nil
}

// withoutHeadings is the library's write door storing passages without
// their heading paths and with vectors of their text alone, so that
// neither index sees the headings while the passages are still cut at
// them.
type withoutHeadings struct {
	*library.Writes
	emb embed.Embedder
}

func (w withoutHeadings) Put(ctx context.Context, d *store.Document, chunks []store.Chunk, _ [][]float32, orig []byte) (store.PutResult, error) {
	texts := make([]string, len(chunks))
	for i := range chunks {
		chunks[i].Headings = nil
		texts[i] = chunks[i].Text
	}
	vecs, err := w.emb.Embed(ctx, texts)
	if err != nil {
		return store.PutResult{}, err
	}
	return w.Writes.Put(ctx, d, chunks, vecs, orig)
}

// ingest ingests paths through the library's write door. The offline
// embedder is not cached and no index is saved: the eval only searches.
func (t *testLibrary) ingest(ctx context.Context, paths []string, co chunk.Options) (ingest.Summary, error) {
	ex, err := extract.New(ctx, extract.Options{})
	if err != nil {
		return ingest.Summary{}, err
	}
	defer ex.Close()
	w := t.lib.BeginWrites(ctx, t.emb, t.emb.Identity(), 0, 0, 0)
	var door ingest.Library = w
	if t.noHeadIndex {
		door = withoutHeadings{w, t.emb}
	}
	in := ingest.New(door, ex, t.emb, ingest.Options{Chunk: co, DropOriginals: true, Workers: 2})
	sum, err := in.Run(ctx, paths)
	if err == nil && len(sum.Failed) > 0 {
		err = fmt.Errorf("%d files failed, first: %v", len(sum.Failed), sum.Failed[0])
	}
	return sum, err
}

func chunkOpts(c config, size int) chunk.Options {
	o := chunk.DefaultOptions()
	if size > 0 {
		o.Size = size
	}
	if c.overlap >= 0 {
		o.Overlap = c.overlap
	}
	if o.Overlap >= o.Size {
		o.Overlap = o.Size / 4
	}
	return o
}

// writeCorpus writes each document as dir/files/ID.txt (title, blank
// line, text), or ID.md with the title as a # heading when markdown is
// set, and returns the folder.
func writeCorpus(dir string, docs []corpusDoc, markdown bool) (string, error) {
	files := filepath.Join(dir, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		return "", err
	}
	for _, d := range docs {
		if strings.TrimSpace(d.Title+d.Text) == "" {
			continue // Cranfield has two empty documents; they cannot be retrieved.
		}
		name, body := d.ID+".txt", d.Title+"\n\n"+d.Text+"\n"
		if markdown {
			name, body = d.ID+".md", "# "+d.Title+"\n\n"+d.Text+"\n"
		}
		if err := os.WriteFile(filepath.Join(files, name), []byte(body), 0o644); err != nil {
			return "", err
		}
	}
	return files, nil
}

// corpus is an evaluation collection written out as files.
type corpus struct {
	base, dir, files string // the collection's folder, a temporary folder, the files in it
	docs             int
	queries          []query
}

// openCorpus loads collection coll and writes its documents into a new
// temporary folder, which the caller removes.
func openCorpus(c config, coll, prefix string) (*corpus, error) {
	cp := &corpus{base: filepath.Join(c.shared, "eval", coll)}
	docs, queries, err := evalset.Load(cp.base)
	if err != nil {
		return nil, err
	}
	cp.docs, cp.queries = len(docs), queries
	if c.queryHalf != "" {
		if cp.base, cp.queries, err = halfQueries(c, coll, cp.base, queries); err != nil {
			return nil, err
		}
	}
	if cp.dir, err = os.MkdirTemp("", prefix); err != nil {
		return nil, err
	}
	if cp.files, err = writeCorpus(cp.dir, docs, c.markdown); err != nil {
		os.RemoveAll(cp.dir)
		return nil, err
	}
	return cp, nil
}

func evalCollection(ctx context.Context, c config, coll string) error {
	cp, err := openCorpus(c, coll, "mcpvec-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cp.dir)
	base, dir, files, queries := cp.base, cp.dir, cp.files, cp.queries
	tl, err := openTestLibrary(ctx, c, dir)
	if err != nil {
		return err
	}
	defer tl.db.Close()
	start := time.Now()
	sum, err := tl.ingest(ctx, []string{files}, chunkOpts(c, c.chunkTokens))
	if err != nil {
		return err
	}
	fmt.Printf("\n## %s%s: %d documents, %d passages, ingested in %s\n\n", coll, map[bool]string{true: " as Markdown"}[c.markdown], sum.Ingested, sum.Chunks, time.Since(start).Round(time.Millisecond))
	if c.embedder == "corpus" {
		if err := tl.useCorpus(ctx, c); err != nil {
			return err
		}
	}
	docOf, err := sourceIDs(tl.db)
	if err != nil {
		return err
	}
	fmt.Println("| mode | nDCG@10 | R@10 | R@100 | MRR@10 | ms/query |")
	fmt.Println("|---|---|---|---|---|---|")
	if err := scoreModes(ctx, c, coll, base, "", tl.lib, queries, docOf); err != nil {
		return err
	}
	if c.weaviate != "" {
		return evalWeaviate(ctx, c, coll, base, tl, queries, docOf)
	}
	return nil
}

// scoreModes writes a run per search mode of lib and prints its scores;
// label prefixes the mode in the table and the run file name.
func scoreModes(ctx context.Context, c config, coll, base, label string, lib *library.Library, queries []query, docOf map[string]string) error {
	for _, m := range strings.Split(c.modes, ",") {
		mode, err := library.ParseMode(m)
		if err != nil {
			return err
		}
		runPath := filepath.Join(c.out, fmt.Sprintf("%s-%s%s.trec", coll, label, mode))
		per, err := writeRun(ctx, lib, queries, mode, docOf, runPath)
		if err != nil {
			return err
		}
		scores, err := score(c, filepath.Join(base, "qrels.tsv"), runPath)
		if err != nil {
			return err
		}
		fmt.Printf("| %s%s | %.3f | %.3f | %.3f | %.3f | %.2f |\n", label, mode, scores["ndcg@10"], scores["recall@10"], scores["recall@100"], scores["mrr@10"], per.Seconds()*1000)
	}
	return nil
}

// sourceIDs maps library document ids to collection ids (the file names).
func sourceIDs(db *store.DB) (map[string]string, error) {
	docs, err := db.Documents()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, d := range docs {
		m[d.ID] = strings.TrimSuffix(filepath.Base(d.SourcePath), filepath.Ext(d.SourcePath))
	}
	return m, nil
}

// writeRun searches every query and writes a TREC run; it returns the mean
// time per query.
func writeRun(ctx context.Context, lib *library.Library, qs []query, mode library.Mode, docOf map[string]string, path string) (time.Duration, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	var total time.Duration
	for _, q := range qs {
		start := time.Now()
		resp, err := lib.Search(ctx, q.Text, library.SearchOptions{K: 100, Mode: mode})
		total += time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("query %s: %w", q.ID, err)
		}
		for i, r := range resp.Results {
			fmt.Fprintf(w, "%s Q0 %s %d %.6f mcpvec-%s\n", q.ID, docOf[r.DocID], i+1, float64(len(resp.Results)-i), mode)
		}
	}
	if err := w.Flush(); err != nil {
		return 0, err
	}
	return total / time.Duration(max(len(qs), 1)), nil
}

func score(c config, qrels, run string) (map[string]float64, error) {
	return evalset.Score(filepath.Join(c.shared, "eval", "eval.py"), qrels, run)
}
