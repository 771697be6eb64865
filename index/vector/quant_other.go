//go:build !amd64

package vector

// dotInt8 is the int8 inner product of a and b (len(b) ≥ len(a)).
func dotInt8(a, b []int8) int32 { return dotInt8Go(a, b) }
