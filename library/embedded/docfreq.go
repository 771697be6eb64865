package embedded

import "context"

// DocFreqs fills df[i] with how many passages hold terms[i] in the BM25
// index and returns the number of passages (library.DocFreqer): what a long
// query's terms are chosen by. The index's terms may be read in place, in
// the file's mapped pages: on a fault there DocFreqs returns 0, and the
// query's terms are chosen without counts. It is safe for concurrent use.
func (l *Backend) DocFreqs(_ context.Context, terms []string, df []int) (n int) {
	err := l.db.GuardFaults(func() {
		for i, t := range terms {
			df[i], n = l.lex.DocFreq(t)
		}
	})
	if err != nil {
		l.opts.Logger.Warn("lexical index: document frequencies", "err", err)
		return 0
	}
	return n
}
