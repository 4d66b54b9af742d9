package main

import (
	"strings"
	"testing"
)

// TestParseSizesMax: --sizes takes sizes up to 1 TiB, the sweeps' limit
// (benchmarks.MaxSize); past it the buffers' arithmetic could wrap.
func TestParseSizesMax(t *testing.T) {
	if got, err := parseSizes("4096,1099511627776"); err != nil || len(got) != 2 {
		t.Errorf("parseSizes(4KiB, 1TiB) = %v, %v, want both", got, err)
	}
	for _, s := range []string{"1099511627777", "18446744073709551615"} {
		if _, err := parseSizes(s); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("parseSizes(%s) = %v, want out of range", s, err)
		}
	}
}
