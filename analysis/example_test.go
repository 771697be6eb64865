package analysis_test

import (
	"fmt"

	"github.com/mcpvec/mcpvec/analysis"
)

func ExampleEstimateTokens() {
	// cl100k_base counts 7 tokens here; the estimate errs on the high side.
	fmt.Println(analysis.EstimateTokens("Are cats attached to their homes?"))
	// Output: 8
}

func ExampleTokenize() {
	fmt.Printf("%q\n", analysis.Tokenize("The cats ran; BZ2_bzDecompressInit failed"))
	// Output: ["cat" "ran" "bz2" "bz" "decompress" "init" "bzdecompressinit" "bz2_bzdecompressinit" "fail"]
}
