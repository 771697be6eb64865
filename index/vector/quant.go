package vector

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// qvec is a vector quantised to int8 with one scale: v ≈ scale · codes.
type qvec struct {
	codes []int8
	scale float32
}

// quantize writes v's int8 codes into dst (len(dst) == len(v)) with the
// symmetric per-vector scale max|v|/127 and returns that scale. Rounding to
// nearest keeps each component within scale/2 of its value.
func quantize(dst []int8, v []float32) float32 {
	m := max(vek32.Max(v), -vek32.Min(v))
	if !(m > 0) {
		clear(dst)
		return 0
	}
	inv := 127 / m
	dst = dst[:len(v)]
	for i, f := range v {
		// |f·inv| ≤ 127 up to rounding; adding ±0.5 (the sign copied by bit
		// mask: a branch on the sign mispredicts half the time) then
		// truncating rounds half away from zero.
		c := f * inv
		half := math.Float32frombits(0x3f000000 | math.Float32bits(c)&0x80000000)
		dst[i] = int8(int32(c + half))
	}
	return m / 127
}

// approx is the int8 estimate of the inner product of a and b.
func approx(a, b qvec) float32 {
	return a.scale * b.scale * float32(dotInt8(a.codes, b.codes))
}

// dotInt8Go is the portable int8 inner product and the reference for the
// assembly.
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}
