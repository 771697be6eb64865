package admin

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

func ExampleCall() {
	dir, err := os.MkdirTemp("", "mcpvec-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "admin.sock") // mcpvec uses SocketPath(runtimeDir, dbPath)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	// In `mcpvec serve`, which holds the library open:
	run := func(ctx context.Context, args []string, cwd string, stdout, stderr io.Writer) int {
		fmt.Fprintf(stdout, "server runs %q in %s\n", args, cwd)
		return 0
	}
	closer, err := Listen(context.Background(), path, run, &Options{Logger: quiet})
	if err != nil {
		panic(err)
	}
	defer closer.Close()

	// In `mcpvec ingest new.pdf` in another terminal:
	code, err := Call(context.Background(), path, "", []string{"ingest", "/home/me/new.pdf"}, "/home/me", os.Stdout, os.Stderr)
	fmt.Println("exit status", code, err)
	// Output:
	// server runs ["ingest" "/home/me/new.pdf"] in /home/me
	// exit status 0 <nil>
}
