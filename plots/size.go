package plots

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units a size may carry, as sweeps write them: powers
// of 1024, any case. KB, MB and GB are not among them: readers disagree
// on what they mean.
var sizeUnits = map[string]uint64{"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tib": 1 << 40}

// parseSize reads a size as a sweep writes it: "4096", "4KiB", "64 m".
// (plots reads sizes without importing harness, which owns the sweep
// language: the arrows point plots → results only.)
func parseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if i < 0 {
		i = len(t)
	}
	mult, ok := sizeUnits[strings.ToLower(strings.TrimSpace(t[i:]))]
	n, err := strconv.ParseUint(t[:i], 10, 64)
	if !ok || err != nil || n == 0 || n > math.MaxUint64/mult {
		return 0, fmt.Errorf("size %q: want a whole number of bytes above 0 with an optional unit, like 4096 or \"4KiB\"", s)
	}
	return n * mult, nil
}
