// Package swar tests eight bytes of a string at a time (SIMD within a
// register: bit tricks on a uint64 that hold in every byte at once), for
// the scans of the query path that read every byte of a passage or a
// response: snippets and JSON strings.
//
// A mask marks a byte by its high bit (0x80) and nothing else. The
// functions that take bytes below 0x80 (Range) never carry from one byte
// into the next; callers mask the high bits off first and treat bytes
// from 0x80 up (non-ASCII) apart. Zero and Less are cheaper but exact only
// up to their first mark (a borrow may mark bytes above it), which is all
// a scan for the first byte of interest needs. Everything here is a pure function, safe
// for concurrent use.
package swar

const (
	// Ones holds 1 in every byte; Ones*c holds c in every byte.
	Ones = 0x0101010101010101
	// High is the high bit of every byte: the bytes from 0x80 up in
	// Load(s)&High, and what every mask marks with.
	High = 0x8080808080808080
	// Low7 clears the high bits.
	Low7 = 0x7f7f7f7f7f7f7f7f
)

// Load reads s[0:8] as a little-endian word (the compiler makes it one
// load), so bits.TrailingZeros64(mask)/8 is the index of the first marked
// byte. s must be at least 8 bytes long.
func Load[T string | []byte](s T) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// Range marks the bytes of x, each below 0x80, from lo to hi (lo ≤ hi <
// 0x80).
func Range(x uint64, lo, hi byte) uint64 {
	ge := x + Ones*uint64(0x80-lo)
	gt := x + Ones*uint64(0x7f-hi)
	return ge &^ gt & High
}

// Equal marks the bytes of w equal to c (any byte values).
func Equal(w uint64, c byte) uint64 {
	x := w ^ Ones*uint64(c)
	return ^((x&Low7 + Low7) | x) & High
}

// Zero marks the lowest zero byte of x, and no byte when there is none;
// bytes above the lowest zero byte may be marked or not.
func Zero(x uint64) uint64 { return (x - Ones) &^ x & High }

// Less marks the lowest byte of w below n (n ≤ 0x80), and no byte when
// there is none; bytes above it may be marked or not.
func Less(w uint64, n byte) uint64 { return (w - Ones*uint64(n)) &^ w & High }
