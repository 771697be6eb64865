package vector_test

import (
	"fmt"

	"github.com/mcpvec/mcpvec/index/vector"
)

func Example() {
	x := vector.New(3, vector.DefaultConfig())
	_ = x.Add(1, []float32{1, 0, 0})
	_ = x.Add(2, []float32{0, 1, 0})
	_ = x.Add(3, []float32{1, 1, 0})
	_ = x.Add(2, []float32{0, 0, 1}) // re-adding an id replaces its vector
	x.Delete(1)
	hits, err := x.Search([]float32{1, 0.9, 0}, 2)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("%d %.3f\n", h.ID, h.Score)
	}
	fmt.Println(x.Len(), x.Has(1))
	// Output:
	// 3 0.999
	// 2 0.000
	// 2 false
}
