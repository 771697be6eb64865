package analysis

import (
	"strings"
	"testing"

	"github.com/mcpvec/mcpvec/internal/cputime"
)

// tokenizeBenchText mixes what passages hold: English prose (stop words,
// inflections the stemmer folds), identifiers and flags that split into
// parts, numbers, and a line of unspaced script.
var tokenizeBenchText = strings.Repeat("The cats were running across the gardens while researchers measured "+
	"IL-6 concentrations of 1,000 ng/mL in BZ2_bzDecompressInit --leak-check=full v1.2.3 HTTPServer logs. "+
	"Signed feature hashing of words and character n-grams, weighted at query time, matches inflections. "+
	"猫は庭を走っていた。 Cross-linking proteins degrade quickly under oxidative stress conditions.\n", 8)

// BenchmarkTokenize measures Tokenize on about 3 KB of mixed passage text,
// in wall and (cpu-ns/op) process CPU time.
func BenchmarkTokenize(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(tokenizeBenchText)))
	c0 := cputime.Process()
	for b.Loop() {
		if len(Tokenize(tokenizeBenchText)) == 0 {
			b.Fatal("no terms")
		}
	}
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N), "cpu-ns/op")
}
