package plots

import (
	"fmt"
	"math"
	"testing"
)

// TestLog10TicksNarrow: a log10 axis spanning less than the gap between
// two of its usual labels (370 to 398 GB/s: no 1, 2 or 5 times a power of
// ten inside) still labels its values, in linear steps.
func TestLog10TicksNarrow(t *testing.T) {
	var labels []string
	for _, tk := range (log10Ticks{}).Ticks(math.Log10(370), math.Log10(398)) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
			if v := math.Pow(10, tk.Value); math.Abs(v-mustAtof(t, tk.Label)) > 1e-6*v {
				t.Errorf("tick %q at %g", tk.Label, v)
			}
		}
	}
	if len(labels) < 2 {
		t.Errorf("labels %v, want at least two on a narrow log axis", labels)
	}
	var wide []string
	for _, tk := range (log10Ticks{}).Ticks(0, 3) {
		if tk.Label != "" {
			wide = append(wide, tk.Label)
		}
	}
	if len(wide) != 4 || wide[0] != "1" || wide[3] != "1000" {
		t.Errorf("labels of 1 to 1000: %v, want the powers of ten", wide)
	}
}

// mustAtof parses a tick label.
func mustAtof(t *testing.T, s string) float64 {
	t.Helper()
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
