package server

import (
	"fmt"
	"log/slog"
	"os"
)

// The URLs to print at start for a server behind a cloudflared tunnel with
// a secret path; give the first one to ChatGPT's connector form.
func ExampleServer_URLs() {
	s, err := New(newFakeLib(), Options{
		Addr:       "127.0.0.1:8080",
		PublicURL:  "https://quiet-lake-1234.trycloudflare.com",
		SecretPath: "k-0123456789abcdefghijklmnopqrstuv",
		LinkKey:    []byte("a stable key kept in the library"),
		Logger:     slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range s.URLs() {
		fmt.Println(u)
	}
	// Output:
	// https://quiet-lake-1234.trycloudflare.com/k-0123456789abcdefghijklmnopqrstuv/mcp
	// https://quiet-lake-1234.trycloudflare.com/k-0123456789abcdefghijklmnopqrstuv/sse/
	// http://127.0.0.1:8080/k-0123456789abcdefghijklmnopqrstuv/mcp
	// http://127.0.0.1:8080/k-0123456789abcdefghijklmnopqrstuv/sse
}
