package vector

import "golang.org/x/sys/cpu"

var useAVX2 = cpu.X86.HasAVX2

// dotInt8 is the int8 inner product of a and b (len(b) ≥ len(a)), with
// AVX2 when the CPU has it. Sums cannot overflow: |code| ≤ 127, so a
// vector would need over 130,000 dimensions.
func dotInt8(a, b []int8) int32 {
	if useAVX2 && len(a) > 0 {
		b = b[:len(a)]
		return dotInt8AVX2(&a[0], &b[0], len(a))
	}
	return dotInt8Go(a, b)
}

// dotInt8AVX2 is written in quant_amd64.s: 32 codes per step, sign-extended
// to int16 (VPMOVSXBW), multiplied and pairwise added into int32
// (VPMADDWD), then a scalar tail.
//
//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32
