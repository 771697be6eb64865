package analysis

// stopFilter has bit stopFilterKey(w) set for every stop word w: a word
// whose bit is clear is no stop word, and Detect skips the map lookup
// (most of its cost) for most words that are not stop words. Built once;
// read-only after.
var stopFilter = func() (f [stopFilterBits / 64]uint64) {
	for w := range stopLangs {
		k := stopFilterKey(w)
		f[k/64] |= 1 << (k % 64)
	}
	return f
}()

const stopFilterBits = 1 << 12

// stopFilterKey hashes a word's length, first and last bytes (w is not
// empty).
func stopFilterKey[S string | []byte](w S) uint {
	return (uint(len(w))*0x9E37 ^ uint(w[0])*0x2F ^ uint(w[len(w)-1])*0x1F3) % stopFilterBits
}

// mayBeStopWord reports false only for a word that is no stop word.
func mayBeStopWord(w []byte) bool {
	k := stopFilterKey(w)
	return stopFilter[k/64]&(1<<(k%64)) != 0
}
