# mcpvec — run `make help` for the targets.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
COMMIT_DATE ?= $(shell TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
LDFLAGS := -X main.Version=$(VERSION) -X main.BuildDate=$(BUILD_DATE) -X main.Commit=$(COMMIT) -X main.CommitDate=$(COMMIT_DATE)
BIN     := bin/mcpvec
GO      ?= go
DEMO_DB := $(CURDIR)/bin/demo-library.db

.PHONY: help build test race lint tidy bench bench-large fuzz demo eval reliability scale anchors realtext ci node-deps release release-check clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/mcpvec with the version stamped
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/mcpvec

test: node-deps ## run every test with the race detector (what CI runs), then name the tests skipped for a missing tool
	@st=0; $(GO) test -race -count=1 -timeout 45m ./... || st=$$?; $(GO) run ./internal/testnote; exit $$st

race: test ## alias of test

node-deps: ## install the pinned npm tools the tests drive: MCP clients, the .mcpb bundle tool (skipped without npm)
	@if command -v npm >/dev/null 2>&1 && [ ! -f server/testdata/node/node_modules/.package-lock.json ]; then \
		cd server/testdata/node && npm ci --no-audit --no-fund --loglevel=error; \
	fi
	@if command -v npm >/dev/null 2>&1 && [ ! -f dist/node_modules/.package-lock.json ]; then \
		cd dist && npm ci --no-audit --no-fund --loglevel=error; \
	fi

lint: ## gofmt, go vet, staticcheck, and a build for Windows and macOS
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	GOOS=windows $(GO) build ./...
	GOOS=darwin $(GO) build ./...

tidy: ## fail if go mod tidy would change go.mod or go.sum
	$(GO) mod tidy -diff

bench: ## short benchmarks (see bench-large for the 100k-vector runs)
	$(GO) test -run '^$$' -bench . -benchtime 1x -count 1 ./...

realtext: ## build the real-text corpus of issue 41 in REALTEXT_OUT (default /tmp/realtext; installs Debian doc packages, root)
	scripts/realtext-corpus.sh $(or $(REALTEXT_OUT),/tmp/realtext) $(or $(REALTEXT_TIER),1)

anchors: ## Lucene, SQLite FTS5, bleve beside mcpvec's BM25 on ANCHORS_SET (default /tmp/realtext/100000; needs cgo, libsqlite3-dev, java)
	cd bench/anchors && $(GO) run -tags libsqlite3 . -set $(or $(ANCHORS_SET),/tmp/realtext/100000) -label "$(or $(ANCHORS_LABEL),anchors)"

bench-large: ## the issue-sized benchmarks: 100k vectors, 1536 dimensions (slow)
	MCPVEC_BENCH_LARGE=1 $(GO) test -run '^$$' -bench . -benchtime 1x -count 1 -timeout 3h ./index/vector/ ./library/... ./server/... ./ingest/sync/

fuzz: ## short, bounded fuzzing of the chunker and the extractor
	$(GO) test -run '^$$' -fuzz FuzzSplit -fuzztime 20s ./ingest/chunk
	$(GO) test -run '^$$' -fuzz FuzzExtract -fuzztime 20s ./ingest/extract
	$(GO) test -run '^$$' -fuzz FuzzStructured -fuzztime 20s ./ingest/extract
	$(GO) test -run '^$$' -fuzz FuzzXMLParts -fuzztime 20s ./ingest/extract

demo: build ## build, ingest testdata/cats.pdf into a demo library, search it, then serve it
	rm -f $(DEMO_DB)
	$(BIN) ingest --db $(DEMO_DB) testdata/cats.pdf
	$(BIN) search --db $(DEMO_DB) -k 3 "are cats attached to their homes"
	@echo; echo "Serving the demo library; connect an MCP client to the URL below. Ctrl-C stops."
	$(BIN) serve --db $(DEMO_DB)

reliability: ## the reliability campaign against the real binary (issue-sized; prints figures, fails past 100 MB RSS)
	$(GO) run ./cmd/mcpvec-reliability

SCALE_PASSAGES ?= 100000
scale: ## the end-to-end scale benchmark (issue 16): SCALE_PASSAGES (default 100000) passages through the real binary
	$(GO) test -count=1 -run TestScaleSmoke ./cmd/mcpvec-scale
	$(GO) run ./cmd/mcpvec-scale -shared ../shared -passages $(SCALE_PASSAGES) $(SCALE_FLAGS)

eval: ## retrieval quality on ../shared/eval (SciFact, Cranfield) and the long-PDF check
	$(GO) run ./cmd/mcpvec-eval -shared ../shared

release: ## archives, .mcpb bundles, SBOM and SHA256SUMS for 6 platforms in dist/out (slow; not part of ci)
	OUT=dist/out scripts/release.sh $(VERSION)

release-check: ## verify dist/out: SHA256SUMS, each binary (version here, file type for the others), each .mcpb validated
	OUT=dist/out scripts/release-verify.sh

ci: lint tidy test ## everything CI checks

clean:
	rm -rf bin
