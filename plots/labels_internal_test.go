package plots

import (
	"testing"

	"efaxx/results"
)

// TestAlgbwLabel: the default algbw label holds for nccl-tests' algbw (one
// rank's buffer over the time) as for efaxx's all2all, whose buffer is
// ranks x size (docs/metrics.md); "ranks x size" alone was all2all's only.
func TestAlgbwLabel(t *testing.T) {
	var p Panel
	if got, want := p.yLabel(results.Metric{Name: "algbw"}), "algbw, GB/s (1e9 B/s): one rank's buffer per operation"; got != want {
		t.Errorf("yLabel(algbw) = %q, want %q", got, want)
	}
}
