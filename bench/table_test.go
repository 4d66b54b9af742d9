package main

import (
	"strings"
	"testing"
)

// A round measured with the cores apart on either side is left out of a
// ratio, and of a column's median; the count says so.
func TestPairedRatioKeepsNearRounds(t *testing.T) {
	near, apartNs := [2]float64{55, 60}, [2]float64{60, 340}
	num := &cell{vals: []float64{5, 1.7, 6, 5.5}, arounds: [][2]float64{near, apartNs, near, near}}
	den := &cell{vals: []float64{5, 5.6, 3, 5.5}, arounds: [][2]float64{near, near, apartNs, near}}
	q := pairedRatios(num, den, 55)
	if len(q) != 2 || median(q) != 1 {
		t.Errorf("pairedRatios = %v, want 2 rounds, median 1 (rounds 1 and 2 left out)", q)
	}
	if got := cellMedian(den, 55); got != "5.5" {
		t.Errorf("median of den = %s, want 5.5 (3 left out)", got)
	}
	if got := den.rounds(55); got != "5 5.6 3* 5.5" {
		t.Errorf("rounds = %q", got)
	}
	if got := ratioCell(q, 4, " (≥ 1)"); !strings.Contains(got, "2 of 4 rounds") {
		t.Errorf("ratio cell %q does not say it kept 2 of 4 rounds", got)
	}
	if got := ratioCell([]float64{0.75, 0.91, 0.79}, 3, " (≥ 1)"); got != "**0.79** (≥ 1), rounds 0.75–0.91" {
		t.Errorf("ratio cell = %q, want the median and the rounds' range", got)
	}
	if got := ratioCell(nil, 4, ""); !strings.HasPrefix(got, "-") {
		t.Errorf("ratio cell with no round kept = %q, want a dash", got)
	}
}
