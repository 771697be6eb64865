package embed

import (
	"fmt"
	"math"
)

// CheckVector reports whether v, a provider's answer, is a usable vector
// of want dimensions (want 0: any length): not empty, every value finite,
// not all zeros. Errors wrap ErrBadVector. Safe for concurrent use.
func CheckVector(v []float32, want int) error {
	if len(v) == 0 {
		return fmt.Errorf("%w: empty vector", ErrBadVector)
	}
	if want > 0 && len(v) != want {
		return fmt.Errorf("%w: %d dimensions, want %d", ErrBadVector, len(v), want)
	}
	zero := true
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: non-finite value at %d", ErrBadVector, j)
		}
		zero = zero && x == 0
	}
	if zero {
		return fmt.Errorf("%w: all zeros", ErrBadVector)
	}
	return nil
}
