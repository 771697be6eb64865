package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpvec/mcpvec/library/weaviate"
)

// carriedSettings are the settings a copy between collections keeps, so
// links signed before it still verify.
var carriedSettings = []string{"link-key", "secret-path"}

// runMigrate copies a library between its file (--db) and a Weaviate
// collection (--to or --from), without extracting or embedding again. An
// interrupted copy resumes where it stopped when run again.
func runMigrate(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("migrate", "[--db FILE] --to weaviate://host:port/Collection | --from weaviate://…", e)
	lf := libFlags{fileOnly: true}
	fs.StringVar(&lf.db, "db", "", "library file (default $MCPVEC_DB or ~/.local/share/mcpvec/library.db)")
	to := fs.String("to", "", "copy the library file into this Weaviate collection")
	from := fs.String("from", "", "copy this Weaviate collection into the library file")
	lf.registerCollection(fs, e)
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if (*to == "") == (*from == "") {
		return errors.New("migrate needs exactly one of --to or --from (a weaviate:// URL)")
	}
	// The file side is opened like any command's (read-write only when it
	// is the destination); the Weaviate side by its URL.
	return withLibrary(ctx, e, &lf, append([]string{"migrate"}, args...), *from != "", needStore, func(file *handle) error {
		return migrate(ctx, e, file, *to, *from, lf.coll)
	})
}

// migrate copies the library file to the Weaviate collection at to, or
// the one at from into the file.
func migrate(ctx context.Context, e *env, file *handle, to, from string, cf *collectionFlags) error {
	url := to + from
	wv, err := openWeaviateStore(ctx, e, url, cf)
	if err != nil {
		return err
	}
	defer wv.Close()
	opts := weaviate.CopyOptions{Settings: carriedSettings, Progress: func(p weaviate.CopyProgress) {
		fmt.Fprintf(e.stderr, "\rmigrate: %d/%d documents (%d already there)", p.Copied+p.Skipped, p.Total, p.Skipped)
	}}
	var p weaviate.CopyProgress
	if to != "" {
		p, err = wv.CopyFrom(ctx, file.db, opts)
	} else {
		p, err = wv.CopyTo(ctx, file.db, opts)
	}
	fmt.Fprintln(e.stderr)
	if err != nil {
		return failf("migrate: %w (run it again to resume)", err)
	}
	fmt.Fprintf(e.stdout, "copied %d documents, %d were already there, from %s to %s\n", p.Copied, p.Skipped,
		map[bool]string{true: file.db.Path(), false: url}[to != ""], map[bool]string{true: url, false: file.db.Path()}[to != ""])
	return nil
}
