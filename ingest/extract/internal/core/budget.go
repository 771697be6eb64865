package core

import "fmt"

// The expansion budget: the text one document may produce is at most
// ExpansionFactor times the file's size, never less than MinExpansion and
// never more than MaxExpansion bytes.
//
// Why these numbers: text formats decode to at most 1.5 times their size
// (UTF-16 to UTF-8) and PDF text is a fraction of the file. Office and
// OpenDocument files are ZIPs of XML: deflate shrinks XML 5 to 15 times and
// the markup around the text is larger than the text, so a real document
// stays under about 10 times its file size. What grows past that is
// references resolved many times over (one shared string in every cell, a
// row repeated, the same chapter listed again and again in an EPUB spine),
// which a reader gains nothing from. 64 leaves a margin of six over the
// densest real files we measured; the floor lets a tiny file produce a
// few megabytes, which costs nothing; the cap is extract.DefaultMaxBytes, the
// largest plain-text file accepted, so no file under the size limit is
// refused for its own text.
const (
	ExpansionFactor = 64
	MinExpansion    = 4 << 20
	MaxExpansion    = 256 << 20
)

// Budget counts the text bytes a document has produced against its
// expansion limit. Readers charge it where references are resolved, before
// they append (a writer checks before writing, a repeat count multiplies
// the charge before the loop), so a bomb stops at the limit instead of
// after it. Once spent, take keeps failing and err returns the ErrExpansion
// error. A nil *Budget is unlimited. It is not safe for concurrent use: one
// Extract call owns one.
type Budget struct {
	left, limit int64
	spent       error
}

// NewBudget returns the budget of a file of size bytes. A file may always
// produce twice its own size (UTF-16 text decodes to up to 1.5 times its
// bytes), so raising Options.MaxBytes past MaxExpansion still reads text.
func NewBudget(size int) *Budget {
	limit := min(max(int64(size)*ExpansionFactor, MinExpansion), MaxExpansion)
	limit = max(limit, 2*int64(size))
	return &Budget{left: limit, limit: limit}
}

// Take charges n bytes and reports whether they fit.
func (b *Budget) Take(n int) bool { return b.TakeN(n, 1) }

// TakeN charges count copies of n bytes at once (a repeat), reporting
// whether they all fit; on failure nothing is charged and the budget is
// spent.
func (b *Budget) TakeN(n, count int) bool {
	if b == nil || n <= 0 || count <= 0 {
		return b.Err() == nil
	}
	if b.spent != nil {
		return false
	}
	if int64(n) > b.left/int64(count) { // no overflow: the product is never formed
		b.spent = fmt.Errorf("%w: text expands past %d MB (%d× the file's size, at most %d MB)",
			ErrExpansion, b.limit>>20, ExpansionFactor, MaxExpansion>>20)
		return false
	}
	b.left -= int64(n) * int64(count)
	return true
}

// ChargePages charges pages read whole by another process (the fallback
// PDF worker), returning the ErrExpansion error when they do not fit.
func ChargePages(b *Budget, pages []string) error {
	for _, p := range pages {
		if !b.Take(len(p)) {
			return b.Err()
		}
	}
	return nil
}

// Err returns the ErrExpansion error once the budget is spent, else nil.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	return b.spent
}
