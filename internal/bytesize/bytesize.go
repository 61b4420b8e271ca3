// Package bytesize writes sizes in bytes as people read them.
package bytesize

import (
	"fmt"
	"strconv"
)

// Format writes n bytes as bytes, KiB or MiB: KiB rounded up, so that a
// few bytes over a limit never read as the limit itself, and a whole
// number of MiB without a decimal ("20 MiB", "15.7 MiB").
func Format(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", (n+1<<10-1)>>10)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
}
