package extract_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpvec/mcpvec/ingest/extract"
)

func ExampleExtractor_Extract() {
	ext, err := extract.New(context.Background(), extract.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer ext.Close()
	doc, err := ext.Extract(context.Background(), "notes.md", []byte("# Cats\n\nCats are **attached** to their [homes](https://example.com)."))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s | %s | %q\n", doc.Title, doc.MediaType, doc.Pages)
	// Output: Cats | text/markdown | ["Cats\n\nCats are attached to their homes."]
}

func ExampleCleanText() {
	fmt.Printf("%q\n", extract.CleanText("The ﬁrst para-\ngraph  ends.\n\n\n\nA second one."))
	// Output: "The first paragraph ends.\n\nA second one."
}
