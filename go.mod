module github.com/mcpvec/mcpvec

go 1.26.8

require (
	github.com/chewxy/math32 v1.10.1 // indirect
	github.com/coder/hnsw v0.6.1 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/renameio v1.0.1 // indirect
	github.com/klippa-app/go-pdfium v1.21.4 // indirect
	github.com/kljensen/snowball v0.10.0 // indirect
	github.com/ledongthuc/pdf v0.0.0-20260907135840-6c8c28e0e8a0 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/viterin/partial v1.1.0 // indirect
	github.com/viterin/vek v0.4.3 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/exp v0.0.0-20240506185415-9bf2ced13842 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/term v0.48.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
