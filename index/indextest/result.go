package indextest

// result is the shape of index.Result and lexical.Result, which this
// package cannot name (both packages' tests import it).
type result = struct {
	ID    uint64
	Score float32
}

// IDs returns the ID of each result, in order; R is index.Result or
// lexical.Result.
func IDs[R ~result](rs []R) []uint64 {
	out := make([]uint64, len(rs))
	for i, r := range rs {
		out[i] = result(r).ID
	}
	return out
}
