// Package bytesize writes byte counts the way mcpvec shows sizes to
// people. It is a leaf: ingest (the too-large message) and the web page
// (file sizes) share it, and neither may import the other.
package bytesize

import "fmt"

// Format writes a size: bytes below 1 KiB, else one decimal in KiB, MiB
// or GiB ("1.5 MiB"). It is safe for concurrent use.
func Format(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
