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

// TestStatLabel: a default label says which statistic a point is where it
// is not the median: the max of the ranks is not a typical rank's rate.
func TestStatLabel(t *testing.T) {
	m := results.Metric{Name: "gbps"}
	if got := (&Panel{Stat: "median"}).yLabel(m); got != metricLabels["gbps"] {
		t.Errorf("yLabel(median) = %q, want the metric's label alone", got)
	}
	if got, want := (&Panel{Stat: "max"}).yLabel(m), metricLabels["gbps"]+"; each point the max of its samples"; got != want {
		t.Errorf("yLabel(max) = %q, want %q", got, want)
	}
	if got := (&Panel{Stat: "max", YLabel: "mine"}).yLabel(m); got != "mine" {
		t.Errorf("yLabel(max) with a y_label = %q, want it as written", got)
	}
}
