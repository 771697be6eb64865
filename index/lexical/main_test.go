package lexical

import (
	"os"
	"testing"
)

// TestMain runs this package's tests without the short-query rule
// (query_short.go): most compare Search with a reference scorer at the
// index's k1 on short synthetic queries. The tests of the rule turn it on
// (withShortQueries).
func TestMain(m *testing.M) {
	shortQueries = false
	os.Exit(m.Run())
}
