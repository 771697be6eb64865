package chunk_test

import (
	"fmt"

	"github.com/mcpvec/mcpvec/ingest/chunk"
)

func ExampleSplit() {
	page1 := "Cats are attached to their homes. They dislike moving.\n\n"
	page2 := "Dogs follow their owners. They adapt to new places quickly."
	text := page1 + page2
	chunks, err := chunk.Split(text, []int{0, len(page1)}, chunk.Options{Size: 12, Overlap: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range chunks {
		fmt.Printf("%d [%d,%d) p.%d-%d %q\n", c.Index, c.Start, c.End, c.PageStart, c.PageEnd, c.Text)
	}
	// Output:
	// 0 [0,33) p.1-1 "Cats are attached to their homes."
	// 1 [21,54) p.1-1 "their homes. They dislike moving."
	// 2 [39,81) p.1-2 "dislike moving.\n\nDogs follow their owners."
	// 3 [68,115) p.2-2 "their owners. They adapt to new places quickly."
}
