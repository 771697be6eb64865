package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Commands return an error; exitStatus, the one place that prints it,
// turns it into the process's exit status. The statuses are listed in
// `mcpvec --help` (exitHelp).
const (
	exitOK      = 0 // the command did what it was asked
	exitFailure = 1 // it failed, or failed in part (a file not ingested, a problem found)
	exitUsage   = 2 // the command line cannot be run (unknown command, bad flag or arguments)
)

// exitHelp is the "Exit status" section of `mcpvec --help`.
const exitHelp = `
Exit status:
  0  success
  1  failure, also in part: a file ingest or sync could not read, a document rm could not find,
     a problem check or info found (the summary names them)
  2  usage: an unknown command or flag, or the wrong number of arguments`

// usageError is a command line mcpvec cannot run: exit status 2. With msg
// empty the usage was printed where the mistake was found (the flag
// package prints its own error; parseArgs prints the command's usage);
// otherwise exitStatus prints "prog: msg", a blank line and usage.
type usageError struct {
	prog, msg string
	usage     func(io.Writer)
}

func (u *usageError) Error() string {
	if u.msg == "" {
		return "usage"
	}
	return u.prog + ": " + u.msg
}

// errUsage is a usageError already printed.
var errUsage error = &usageError{}

// exitError is an exit status whose reasons the command printed itself: a
// summary naming the files that failed, check's problems, the output of a
// command a running server ran. exitStatus prints nothing for it.
type exitError struct{ code int }

func (x *exitError) Error() string { return fmt.Sprintf("exit status %d", x.code) }

// errReported is status 1 after the command printed what failed.
var errReported error = &exitError{code: exitFailure}

// exited is the error for the status another process reported (the
// server a command was handed to): nil for 0.
func exited(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// failure is a command's error with what the command was doing around its
// cause: Error is the whole message, and the damaged-library hint looks at
// the cause alone (errorLine). failf makes one.
type failure struct {
	msg   string
	cause error
}

func (f *failure) Error() string { return f.msg }
func (f *failure) Unwrap() error { return f.cause }

// failf is fmt.Errorf for a command's own context around the error it
// wraps with %w (at most one).
func failf(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &failure{msg: err.Error(), cause: errors.Unwrap(err)}
}

// exitStatus prints err on w and returns the exit status for it: 0 for
// nil and for --help, 2 for a usageError, an exitError's own status, and
// 1 for any other error, printed as one "mcpvec: …" line (printError). It
// keeps no state: commands forwarded to a server call it concurrently,
// each with its own w.
func exitStatus(w io.Writer, err error) int {
	var u *usageError
	var x *exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &u):
		if u.msg != "" {
			fmt.Fprintf(w, "%s: %s\n\n", u.prog, u.msg)
			u.usage(w)
		}
		return exitUsage
	case errors.As(err, &x):
		return x.code
	}
	printError(w, err)
	return exitFailure
}

// printError prints err as "mcpvec: …" with what a terminal would act on
// escaped. A damaged or empty library file, which every command can meet,
// is one line pointing to `mcpvec check --repair` (damagedHint) instead of
// the command's own message. rm calls it for each document it could not
// remove before it goes on; everything else goes through exitStatus.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "mcpvec: "+errorLine(err))
}

// errorLine is the text printError prints for err.
func errorLine(err error) string {
	cause := err
	for f, ok := cause.(*failure); ok; f, ok = cause.(*failure) {
		cause = f.cause
	}
	if hint, ok := damagedHint(cause); ok {
		return termSafe(hint, false)
	}
	return termSafe(err.Error(), true)
}
