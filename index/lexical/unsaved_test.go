package lexical

import (
	"fmt"
	"testing"

	"github.com/mcpvec/mcpvec/index/indextest"
)

// TestUnsavedTellsWhetherSaveWrites: Unsaved is true exactly when Save
// would change what kv holds (a new index, an added or removed passage, a
// fold due), and false after a Save and after a Load of what it saved,
// in place too, so that a caller may skip the Save.
func TestUnsavedTellsWhetherSaveWrites(t *testing.T) {
	ix := New(DefaultConfig())
	kv := indextest.NewKV()
	indextest.WantSaveWrites(t, "a new, empty index", ix, kv, kv, true)
	indextest.WantSaveWrites(t, "after its Save", ix, kv, kv, false)
	ix.Add(1, "cats are attached to their homes")
	indextest.WantSaveWrites(t, "after an add", ix, kv, kv, true)
	ix.Delete(1)
	ix.Add(2, "dogs are loyal")
	indextest.WantSaveWrites(t, "after a delete and an add", ix, kv, kv, true)
	ix.Add(3, "loyal dogs") // no new term: a record only
	indextest.WantSaveWrites(t, "after an add of known terms", ix, kv, kv, true)
	ix.Add(4, "loyal")
	indextest.WantSaveWrites(t, "after another add", ix, kv, kv, true)
	ix.Delete(4)
	indextest.WantSaveWrites(t, "after a delete", ix, kv, kv, true)
	got, _, err := LoadIDs(kv, DefaultConfig(), idsOf(map[uint64]string{2: "", 3: ""}), nil)
	if err != nil {
		t.Fatal(err)
	}
	indextest.WantSaveWrites(t, "loaded", got, kv, kv, false)

	_, inPlace, seg := loadInPlace(t, 3, 400) // segments beside more than 25 records
	indextest.WantSaveWrites(t, "a segment loaded in place", inPlace, InPlace(mappedKV{seg}), seg, false)
	if len(inPlace.InPlaceBytes()) == 0 {
		t.Fatal("a Save that wrote nothing detached the index")
	}
	for i := range 20 {
		inPlace.Add(uint64(1000+i), fmt.Sprintf("fresh passage %d", i))
	}
	indextest.WantSaveWrites(t, "after adds beside the segment", inPlace, InPlace(mappedKV{seg}), seg, true)
	indextest.WantSaveWrites(t, "after their Save", inPlace, InPlace(mappedKV{seg}), seg, false)
	inPlace.Fold() // 20 records, more than segmentMin: a new segment is due
	indextest.WantSaveWrites(t, "after Fold", inPlace, InPlace(mappedKV{seg}), seg, true)
}
