package analysis

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kljensen/snowball/english"
)

// TestStemCacheMatchesSnowball: stem gives english.Stem's answer on a miss,
// on a hit, from many goroutines at once, and for words that arrive after
// the cache is full.
func TestStemCacheMatchesSnowball(t *testing.T) {
	words := []string{"attached", "studies", "happiness", "running", "cats", "generously", "sky", "skies", "dying"}
	for i := range stemCacheMax + 100 {
		words = append(words, fmt.Sprintf("word%sing", string(rune('a'+i%26))+fmt.Sprint(i)))
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range words {
				w := words[(i*(g+1))%len(words)]
				for range 2 {
					if got, want := stem(w), english.Stem(w, true); got != want {
						t.Errorf("stem(%q) = %q, english.Stem says %q", w, got, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if n := stems.n.Load(); n < stemCacheMax {
		t.Errorf("%d words tried to enter the cache, want at least %d", n, stemCacheMax)
	}
	size := 0
	stems.m.Range(func(any, any) bool { size++; return true })
	if size > stemCacheMax {
		t.Errorf("the cache holds %d words, more than %d", size, stemCacheMax)
	}
}

// TestStem: only plain words (lower-case ASCII letters, longer than two)
// are stemmed; anything else comes back as it went in.
func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"running": "run", "studies": "studi", "cats": "cat",
		"is": "is", "Running": "Running", "café": "café", "v2": "v2", "": "",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}
