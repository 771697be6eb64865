package embedded_test

import (
	"testing"

	"github.com/mcpvec/mcpvec/library"
	"github.com/mcpvec/mcpvec/library/embedded/embeddedtest"
)

// wordEmbedder is the kit's deterministic test embedder.
var wordEmbedder = embeddedtest.Words

// fixture is a Library over the embedded backend of a new library file.
type fixture struct{ *embeddedtest.Fixture }

func newFixture(t *testing.T, opts library.Options) *fixture {
	return &fixture{embeddedtest.New(t, opts)}
}
