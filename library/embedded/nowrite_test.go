package embedded_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpvec/mcpvec/ingest/embed"
	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
	"github.com/mcpvec/mcpvec/store"
)

// TestUnchangedSaveWritesNothing: once the indexes are saved, Save, Fold
// and the end of a write session that changed nothing (what every sync of
// an unchanged folder and every rescan of `serve --watch` end with) begin
// no write transaction, so the file keeps its bytes and the BM25 index
// keeps reading its segment in place (a write would make it copy it). A
// write then is still saved, once, and the next open finds the indexes in
// step with the store.
func TestUnchangedSaveWritesNothing(t *testing.T) {
	for _, mode := range []library.Mode{library.Lexical, library.Hybrid} {
		t.Run(string(mode), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lib.db")
			f := savedLibrary(t, path)
			opts := library.Options{Mode: mode, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			lib, err := embedded.Open(context.Background(), f.DB, wordEmbedder, opts)
			if err != nil {
				t.Fatal(err)
			}
			lex := embedded.LexIndex(lib)
			if len(lex.InPlaceBytes()) == 0 {
				t.Fatal("the reopened index reads nothing in place")
			}
			before := f.DB.WriteStats()
			idleWrites(t, lib)
			if got := f.DB.WriteStats(); got != before {
				t.Errorf("idle saves: write transactions %+v, were %+v", got, before)
			}
			if len(lex.InPlaceBytes()) == 0 {
				t.Error("idle saves detached the index from the file")
			}
			f.Lib = lib
			f.Add(t, "new", "new.txt", "text/plain", "", "A tugboat named Bravo.")
			wrote := f.DB.WriteStats()
			idleWrites(t, lib) // now saves
			saved := f.DB.WriteStats()
			if saved.Committed <= wrote.Committed {
				t.Error("the indexes were not saved after a write")
			}
			idleWrites(t, lib)
			if got := f.DB.WriteStats(); got != saved {
				t.Errorf("idle saves after a saved write: write transactions %+v, were %+v", got, saved)
			}
			if _, synced := f.reopen(t); !synced {
				t.Error("the indexes saved after the write are not in step with the store")
			}
		})
	}
}

// TestOpenRepairIsStillSaved: an open that rebuilds an index from the
// store (its bucket lost) saves it, although the store's generation is the
// one recorded: the next open then has nothing to repair and writes
// nothing.
func TestOpenRepairIsStillSaved(t *testing.T) {
	for _, aux := range []string{embedded.AuxLexical, embedded.AuxVectors} {
		t.Run(aux, func(t *testing.T) {
			f := savedLibrary(t, filepath.Join(t.TempDir(), "lib.db"))
			if err := f.DB.Update(func(tx *store.Tx) error { return tx.DropAux(aux) }); err != nil {
				t.Fatal(err)
			}
			before := f.DB.WriteStats()
			f.reopen(t)
			repaired := f.DB.WriteStats()
			if repaired.Committed != before.Committed+1 {
				t.Errorf("the open that rebuilt %s: %d commits, want 1", aux, repaired.Committed-before.Committed)
			}
			if _, synced := f.reopen(t); !synced {
				t.Error("the next open is not in step with the store")
			}
			if got := f.DB.WriteStats(); got != repaired {
				t.Errorf("the next open: write transactions %+v, were %+v", got, repaired)
			}
		})
	}
}

// savedLibrary makes a library file at path with a saved BM25 segment and
// vector index, and opens it.
func savedLibrary(t *testing.T, path string) *fixture {
	t.Helper()
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.SetEmbedder(store.EmbedderInfo{Provider: "test", Model: "words", Dimensions: 64}); err != nil {
		t.Fatal(err)
	}
	lib, err := embedded.Open(context.Background(), db, wordEmbedder, library.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{&embeddedtest.Fixture{DB: db, Lib: lib}}
	f.Add(t, "big", "big.txt", "text/plain", "", harbourPages(1200)...)
	if err := f.Lib.Fold(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f
}

// idleWrites runs what a sync that changed nothing runs on lib: Save, and
// a write session's end (Fold, and the embed cache cleared).
func idleWrites(t *testing.T, lib *library.Library) {
	t.Helper()
	if err := lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := embed.Identity{Provider: "test", Model: "words", Dimensions: 64}
	w := lib.BeginWrites(context.Background(), cacheless{}, id, 64, 1, 0)
	if err := w.Finish(context.Background(), true); err != nil {
		t.Fatal(err)
	}
}

// cacheless is an embedder a write session wraps in its embed cache,
// which nothing here calls.
type cacheless struct{}

func (cacheless) Embed(context.Context, []string) ([][]float32, error) { return nil, nil }

// TestSignInKeepsIndexInPlace: the writes of a connector's sign-in (auth
// records) and of a setting are small, so the store keeps the pin and the
// BM25 index keeps reading its segment in place instead of copying it into
// the heap (at 1M passages ~800 MB); searches find what they found before.
func TestSignInKeepsIndexInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.db")
	savedLibrary(t, path).DB.Close()
	db, err := store.Open(path, &store.Options{MapRoom: 64 << 20}) // as a library of 64 MiB or more is opened
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f := &fixture{&embeddedtest.Fixture{DB: db}}
	lib, err := embedded.Open(context.Background(), f.DB, wordEmbedder, library.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	lex := embedded.LexIndex(lib)
	if len(lex.InPlaceBytes()) == 0 {
		t.Fatal("the reopened index reads nothing in place")
	}
	want := lex.Search("harbour pilot", 5)
	err = f.DB.AuthUpdate(func(tx *store.AuthTx) error { return tx.Put("token", "t1", []byte("hash")) })
	if err != nil {
		t.Fatal(err)
	}
	if err := f.DB.PutSetting("link-key", []byte("secret")); err != nil {
		t.Fatal(err)
	}
	if len(lex.InPlaceBytes()) == 0 {
		t.Error("a sign-in write detached the index from the file")
	}
	if got := lex.Search("harbour pilot", 5); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("after the sign-in: %v, before %v", got, want)
	}
}
