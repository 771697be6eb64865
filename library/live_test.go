package library_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/store/storetest"
)

// TestReleaseEvery: pages a fetch maps into the process leave its resident
// set at the next tick of ReleaseEvery, and reads still work afterwards.
func TestReleaseEvery(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ReleaseMapped does nothing here")
	}
	f := newFixture(t, library.Options{})
	const pages, pageLen = 4, 256 << 10
	texts := make([]string, pages)
	for i := range texts {
		texts[i] = strings.Repeat("lighthouse keepers trim wicks ", pageLen/30)
	}
	f.Add(t, "big", "big.txt", "text/plain", "", texts...)
	live := library.NewLive(f.Lib)
	fetch := func() {
		if r, err := live.Fetch(context.Background(), "big", library.FetchOptions{}); err != nil || r.Text == "" {
			t.Fatalf("fetch: %+v, %v", r, err)
		}
	}
	fetch()
	before := storetest.RssFileKB(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); live.ReleaseEvery(ctx, 20*time.Millisecond) }()
	deadline := time.Now().Add(5 * time.Second)
	for before-storetest.RssFileKB(t) < pages*pageLen/1024/2 {
		if time.Now().After(deadline) {
			t.Fatalf("RssFile %d kB -> %d kB: the mapped pages were not released", before, storetest.RssFileKB(t))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	fetch()
}
