// Command mcpvec ingests documents into a local library and serves it over
// MCP. Run `mcpvec help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpvec/mcpvec/ingest/extract"
)

// Version is stamped by the Makefile (-ldflags "-X main.Version=...").
var Version = "dev"

// env is what a command sees of the process, so tests can run commands
// in-process with their own streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	cwd            string
	// forwarded is true when the command runs inside a server on behalf of
	// a CLI (over the admin channel): it must use the server's library.
	forwarded *serveState
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) int
}

func commands() []command {
	return []command{
		{"ingest", "add files and folders to the library", runIngest},
		{"search", "search the library", runSearch},
		{"fetch", "print a passage or a whole document", runFetch},
		{"ls", "list documents", runLs},
		{"rm", "remove documents by id or path", runRm},
		{"sync", "make the library match folders: add, update, move, remove", runSync},
		{"info", "show what the library holds", runInfo},
		{"serve", "serve the library over MCP", runServe},
		{"reindex", "re-embed every passage with another embedder", runReindex},
		{"check", "verify the library; --repair rebuilds or copies out what is readable", runCheck},
		{"auth", "manage OAuth sign-in for serve --oauth (passphrase, approve, ls, revoke)", runAuth},
		{"migrate", "copy the library to or from a Weaviate collection", runMigrate},
		{"version", "print the version", runVersion},
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == extractWorkerCmd {
		if err := extract.RunWorker(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "mcpvec extract worker:", err)
			os.Exit(1)
		}
		return
	}
	searchTurns = spareProc(os.Args, os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cwd, _ := os.Getwd()
	os.Exit(Main(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, cwd: cwd}))
}

// extractWorkerCmd is the hidden subcommand that runs the isolated fallback
// PDF extractor in a child process.
const extractWorkerCmd = "__extract-worker"

// Main runs one mcpvec command and returns the exit status.
func Main(ctx context.Context, args []string, e *env) int {
	slog.SetDefault(slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: logLevel(e)})))
	return dispatch(ctx, args, e)
}

// dispatch runs one command without touching process-wide state, so the
// server can run forwarded commands with it.
func dispatch(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, e, args[1:])
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	fmt.Fprintf(e.stderr, "mcpvec: unknown command %q\n\n", args[0])
	usage(e.stderr)
	return 2
}

func getenvFn() func(string) string { return os.Getenv }

func logLevel(e *env) slog.Level {
	if strings.EqualFold(e.getenv("MCPVEC_LOG"), "debug") {
		return slog.LevelDebug
	}
	return slog.LevelInfo
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "mcpvec %s — a local search engine for your documents, served over MCP\n\nUsage: mcpvec <command> [flags] [args]\n\nCommands:\n", Version)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun `mcpvec <command> --help` for a command's flags.\nThe library is $MCPVEC_DB, else $XDG_DATA_HOME/mcpvec/library.db (~/.local/share/mcpvec/library.db); --db overrides.")
}

// parseArgs is parseFlags followed by a check of the number of positional
// arguments: when want rejects it, the usage is printed and the status is 2.
func parseArgs(fs *flag.FlagSet, args []string, e *env, want func(n int) bool) (pos []string, status int, ok bool) {
	pos, status, ok = parseFlags(fs, args, e)
	if ok && !want(len(pos)) {
		fs.Usage()
		return nil, 2, false
	}
	return pos, status, ok
}

// one and some are the usual argument counts for parseArgs.
func one(n int) bool  { return n == 1 }
func some(n int) bool { return n > 0 }

// parseFlags parses flags that may come before or after positional
// arguments; "--" ends flag parsing. It returns the positional arguments, or
// ok=false after printing an error or help (status is the exit code).
func parseFlags(fs *flag.FlagSet, args []string, e *env) (pos []string, status int, ok bool) {
	fs.SetOutput(e.stderr)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0, false
		}
		if err != nil {
			return nil, 2, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func newFlagSet(name, usageLine string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mcpvec %s %s\n\nFlags:\n", name, usageLine)
		printDefaults(fs)
	}
	return fs
}

// printDefaults is fs.PrintDefaults with the flags spelled --name, as the
// README and the usage lines spell them, and no value shown for an on/off
// flag: PrintDefaults takes a `quoted` word of any flag's usage as the name
// of its value, so "--roots  list the folders `mcpvec sync` keeps" read as
// if --roots took one.
func printDefaults(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Usage = strings.ReplaceAll(f.Usage, "`", "")
		}
	})
	var b strings.Builder
	out := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	for l := range strings.Lines(b.String()) {
		if strings.HasPrefix(l, "  -") {
			l = "  --" + l[3:]
		}
		io.WriteString(out, l)
	}
}

// libFlagSet is newFlagSet for a command that opens the library, with the
// library flags (--db, --store) registered.
func libFlagSet(name, usageLine string, e *env) (*flag.FlagSet, *libFlags) {
	fs := newFlagSet(name, usageLine, e)
	lf := new(libFlags)
	lf.register(fs)
	return fs, lf
}

// embedFlagSet is libFlagSet for a command that may create the library or
// embed: the embedder flags are registered too.
func embedFlagSet(name, usageLine string, e *env) (*flag.FlagSet, *libFlags, *embedFlags) {
	fs, lf := libFlagSet(name, usageLine, e)
	ef := new(embedFlags)
	ef.register(fs, e)
	return fs, lf, ef
}

// errorf prints a command's error. A damaged or empty library file, which
// every command can meet, is one line pointing to `mcpvec check --repair`.
func errorf(e *env, format string, a ...any) int {
	for _, v := range a {
		if err, ok := v.(error); ok {
			if hint, ok := damagedHint(err); ok {
				fmt.Fprintln(e.stderr, "mcpvec: "+termSafe(hint, false))
				return 1
			}
		}
	}
	fmt.Fprintln(e.stderr, "mcpvec: "+termSafe(fmt.Sprintf(format, a...), true))
	return 1
}
