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
	"github.com/mcpvec/mcpvec/server/telemetry"
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
	run           func(ctx context.Context, e *env, args []string) error
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
		{"auth", "manage OAuth sign-in for serve --oauth (passphrase, approve, ls, users, revoke)", runAuth},
		{"audit", "print who searched, fetched, uploaded and removed what (serve's audit trail)", runAudit},
		{"migrate", "copy the library to or from a Weaviate collection", runMigrate},
		{"backup", "write a consistent copy of the library file, also while it is served", runBackup},
		{"restore", "put a checked backup in place of the library file", runRestore},
		{"export", "write the library in the portable format (JSON Lines)", runExport},
		{"import", "read an export into the library", runImport},
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
	if len(args) > 0 && args[0] == "serve" {
		// A server's log lines (one per request) are written from a
		// goroutine of their own, not under slog's lock in the request.
		lw := telemetry.NewLogWriter(e.stderr)
		defer lw.Close()
		served := *e
		served.stderr = lw
		e = &served
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: logLevel(e)})))
	return dispatch(ctx, args, e)
}

// dispatch runs one command without touching process-wide state, so the
// server can run forwarded commands with it, and returns its exit status
// after printing its error (exitStatus).
func dispatch(ctx context.Context, args []string, e *env) int {
	return exitStatus(e.stderr, runCommand(ctx, args, e))
}

// runCommand runs the command args[0] names.
func runCommand(ctx context.Context, args []string, e *env) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(e.stdout)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(ctx, e, args[1:])
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	return &usageError{prog: "mcpvec", msg: fmt.Sprintf("unknown command %q", args[0]), usage: usage}
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
	fmt.Fprintln(w, exitHelp)
}

// parseArgs is parseFlags followed by a check of the number of positional
// arguments: when want rejects it, the usage is printed and the error is
// errUsage.
func parseArgs(fs *flag.FlagSet, args []string, e *env, want func(n int) bool) ([]string, error) {
	pos, err := parseFlags(fs, args, e)
	if err == nil && !want(len(pos)) {
		fs.Usage()
		return nil, errUsage
	}
	return pos, err
}

// one and some are the usual argument counts for parseArgs.
func one(n int) bool  { return n == 1 }
func some(n int) bool { return n > 0 }

// parseFlags parses flags that may come before or after positional
// arguments; "--" ends flag parsing. It returns the positional arguments,
// or, after the flag package printed the help or the mistake and the
// usage, flag.ErrHelp (exit status 0) or errUsage.
func parseFlags(fs *flag.FlagSet, args []string, e *env) (pos []string, err error) {
	fs.SetOutput(e.stderr)
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			return nil, flag.ErrHelp
		}
		if err != nil {
			return nil, errUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
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
