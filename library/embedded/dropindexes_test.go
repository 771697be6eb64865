package embedded_test

import (
	"context"
	"testing"

	"github.com/mcpvec/mcpvec/library/embedded"
	"github.com/mcpvec/mcpvec/store"
)

// TestDropIndexesLeavesTheStoreToRebuildFrom: after DropIndexes the
// persisted indexes are gone, the embed cache stays, and a reopen builds
// both indexes again from the stored passages.
func TestDropIndexesLeavesTheStoreToRebuildFrom(t *testing.T) {
	f := savedThenAdded(t)
	if err := f.Lib.Save(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.DB.Update(func(tx *store.Tx) error {
		kv, err := tx.Aux(embedded.AuxEmbedCache)
		if err != nil {
			return err
		}
		return kv.Put([]byte("staged"), []byte("kept"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := embedded.DropIndexes(f.DB); err != nil {
		t.Fatal(err)
	}
	err := f.DB.View(func(tx *store.Tx) error {
		for _, name := range []string{embedded.AuxVectors, embedded.AuxLexical} {
			if kv, err := tx.Aux(name); err != nil || !kv.Empty() {
				t.Errorf("aux %s after DropIndexes: empty %v, %v; want dropped", name, err == nil && kv.Empty(), err)
			}
		}
		kv, err := tx.Aux(embedded.AuxEmbedCache)
		if err != nil || string(kv.Get([]byte("staged"))) != "kept" {
			t.Errorf("embed cache after DropIndexes: %v; want kept", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reopenExpecting(t, f, 2)
}
