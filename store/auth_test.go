package store_test

import (
	"errors"
	"testing"

	"github.com/mcpvec/mcpvec/store"
)

func TestAuthRecords(t *testing.T) {
	db := MustOpenDB(t)
	// A library that never used sign-in has no auth bucket: reads are empty.
	err := db.AuthView(func(tx *store.AuthTx) error {
		if v := tx.Get("token", "x"); v != nil {
			t.Errorf("Get on an empty library = %q", v)
		}
		if err := tx.Put("token", "x", []byte("1")); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("Put in AuthView = %v, want ErrReadOnly", err)
		}
		return tx.ForEach("token", func(string, []byte) error { t.Error("ForEach on an empty kind called fn"); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AuthUpdate(func(tx *store.AuthTx) error {
		if err := tx.Put("token", "a", []byte("1")); err != nil {
			return err
		}
		return tx.Put("grant", "g", []byte("2"))
	}); err != nil {
		t.Fatal(err)
	}
	// A failing transaction leaves nothing behind.
	boom := errors.New("boom")
	if err := db.AuthUpdate(func(tx *store.AuthTx) error {
		tx.Delete("token", "a")
		tx.Put("token", "b", []byte("3"))
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("AuthUpdate = %v, want boom", err)
	}
	var keys []string
	db.AuthView(func(tx *store.AuthTx) error {
		return tx.ForEach("token", func(k string, v []byte) error { keys = append(keys, k+"="+string(v)); return nil })
	})
	if len(keys) != 1 || keys[0] != "a=1" {
		t.Fatalf("tokens after a rolled-back update = %v, want [a=1]", keys)
	}
}

func TestAuthRecordsSurviveReopen(t *testing.T) {
	db, path := openNew(t, nil)
	if err := db.AuthUpdate(func(tx *store.AuthTx) error { return tx.Put("owner", "passphrase", []byte("h")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ro, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.AuthUpdate(func(*store.AuthTx) error { return nil }); !errors.Is(err, store.ErrReadOnly) {
		t.Errorf("AuthUpdate on a read-only library = %v", err)
	}
	ro.AuthView(func(tx *store.AuthTx) error {
		if got := string(tx.Get("owner", "passphrase")); got != "h" {
			t.Errorf("after reopen: %q", got)
		}
		return nil
	})
}
