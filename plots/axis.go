package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
)

// SizeTicks marks every power of two between min and max on a log2 message
// size axis, and labels every second one (1K, 4K, 16K, ...) or, over a wide
// range, every fourth, so labels never collide at README width.
type SizeTicks struct{}

// Ticks implements plot.Ticker.
func (SizeTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Ceil(math.Log2(min))), int(math.Floor(math.Log2(max)))
	if lo < 0 {
		lo = 0
	}
	every := 2
	if hi-lo > 16 {
		every = 4
	}
	var ticks []plot.Tick
	for e := lo; e <= hi && e < 64; e++ {
		t := plot.Tick{Value: math.Ldexp(1, e)}
		if e%every == 0 {
			t.Label = SizeLabel(uint64(1) << e)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// SizeLabel writes a byte count the way size axes read: 512, 4K, 1M, 1G.
// Counts that are not a whole number of units keep their bytes.
func SizeLabel(n uint64) string {
	units := []string{"", "K", "M", "G", "T", "P"}
	u := 0
	for n >= 1024 && n%1024 == 0 && u < len(units)-1 {
		n /= 1024
		u++
	}
	return fmt.Sprintf("%d%s", n, units[u])
}
