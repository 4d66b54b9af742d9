package main

import (
	"fmt"
	"io"
	"os"
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
	if got := ratioCell(q, 4, goal{lo: 1}); !strings.Contains(got, "2 of 4 rounds") {
		t.Errorf("ratio cell %q does not say it kept 2 of 4 rounds", got)
	}
	if got := ratioCell([]float64{0.75, 0.91, 0.79}, 3, goal{lo: 1}); got != "**0.79** (≥ 1), rounds 0.75–0.91 (too few for a 95% CI)" {
		t.Errorf("ratio cell = %q, want the median and the rounds' range", got)
	}
	if got := ratioCell(nil, 4, goal{}); !strings.HasPrefix(got, "-") {
		t.Errorf("ratio cell with no round kept = %q, want a dash", got)
	}
}

// The interval is the k-th smallest and largest of n values, k from the
// binomial tail: n = 9 drops one value at each end, n = 15 three.
func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		q := make([]float64, n)
		for i := range q {
			q[i] = float64(n - i) // descending: medianCI sorts
		}
		return q
	}
	for _, c := range []struct {
		n      int
		lo, hi float64
		ok     bool
	}{{5, 0, 0, false}, {6, 1, 6, true}, {9, 2, 8, true}, {15, 4, 12, true}, {21, 6, 16, true}} {
		lo, hi, ok := medianCI(seq(c.n))
		if lo != c.lo || hi != c.hi || ok != c.ok {
			t.Errorf("n = %d: medianCI = %g, %g, %v; want %g, %g, %v", c.n, lo, hi, ok, c.lo, c.hi, c.ok)
		}
	}
}

// A goal is met only when the whole interval meets it, missed when none
// of it does.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		g    goal
		a, b float64
		want string
	}{
		{goal{lo: 1}, 1.01, 1.2, "met"},
		{goal{lo: 1}, 0.97, 1.2, "not told apart"},
		{goal{lo: 1}, 0.8, 0.99, "missed"},
		{goal{hi: 1}, 0.9, 0.98, "met"},
		{goal{hi: 1}, 1.01, 1.1, "missed"},
		{goal{lo: 0.9, hi: 1.1}, 0.95, 1.05, "met"},
		{goal{lo: 0.9, hi: 1.1}, 1.02, 1.15, "not told apart"},
		{goal{lo: 0.9, hi: 1.1}, 1.12, 1.3, "missed"},
		{goal{}, 0.5, 2, ""},
	} {
		if got := c.g.verdict(c.a, c.b); got != c.want {
			t.Errorf("%v.verdict(%g, %g) = %q, want %q", c.g, c.a, c.b, got, c.want)
		}
	}
	q := []float64{1.02, 1.1, 1.05, 1.2, 1.08, 1.01, 1.15, 1.04, 1.06}
	if got := ratioCell(q, 9, goal{lo: 1}); got != "**1.06** (≥ 1), 95% CI 1.02–1.15: met" {
		t.Errorf("ratio cell = %q", got)
	}
}

// A row's cells run in order in even rounds and in reverse in odd ones.
func TestMeasureAlternatesOrder(t *testing.T) {
	var order []int
	mk := func(i int) *cell {
		return &cell{around: func() [2]float64 { return [2]float64{60, 60} },
			do: func() (float64, float64, error) { order = append(order, i); return 1, 0, nil }}
	}
	tb := &table{cols: []string{"a", "b", "c", "d"}, rows: []*row{{cells: []*cell{mk(0), nil, mk(2), mk(3)}}}}
	for n := 0; n < 2; n++ {
		if _, err := tb.measure(cores{}, &readings{}, n, 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(order); got != "[0 2 3 3 2 0]" {
		t.Errorf("cells ran in order %s, want [0 2 3 3 2 0]", got)
	}
}

// With best above 1 a round keeps each cell's best measurement read near:
// the highest, or the lowest where lower is better.
func TestMeasureKeepsBest(t *testing.T) {
	for _, c := range []struct {
		lower bool
		want  float64
	}{{false, 5}, {true, 2}} {
		apart := [2]float64{60, 400} // the fourth is read apart, and so are the 3 times it is taken again
		vals := []float64{3, 5, 2, 7, 7, 7, 7}
		arounds := [][2]float64{{60, 60}, {60, 60}, {60, 60}, apart, apart, apart, apart}
		k := 0
		cl := &cell{around: func() [2]float64 { return arounds[k-1] },
			do: func() (float64, float64, error) { k++; return vals[k-1], 0, nil }}
		tb := &table{cols: []string{"a"}, lower: c.lower, rows: []*row{{cells: []*cell{cl}}}}
		if _, err := tb.measure(cores{}, &readings{}, 0, 4); err != nil {
			t.Fatal(err)
		}
		if len(cl.vals) != 1 || cl.vals[0] != c.want {
			t.Errorf("lower %v: kept %v, want %g (7 was read apart)", c.lower, cl.vals, c.want)
		}
	}
}

// The floor is a low quantile of the readings, not their least: one low
// outlier must not make a host's usual round trip read apart (a 16-core
// host read 170-340 ns, and once 70), while the development VM's two
// placements (near 50-120 ns, apart 330-430) stay told apart.
func TestFloorIgnoresOneOutlier(t *testing.T) {
	var host readings
	host.add(70)
	for i := 0; i < 40; i++ {
		host.add(float64(170 + 4*i))
	}
	if f := host.floor(); !near([2]float64{170, 336}, f) {
		t.Errorf("16-core host: floor %g calls its usual readings 170/336 apart", f)
	}
	var vm readings
	for i := 0; i < 30; i++ {
		vm.add(float64(50 + 2*i))
		vm.add(float64(330 + 3*i))
	}
	f := vm.floor()
	if !near([2]float64{55, 120}, f) || near([2]float64{60, 330}, f) {
		t.Errorf("VM: floor %g does not tell near (55/120) from apart (60/330)", f)
	}
	if (&readings{}).floor() != 0 {
		t.Error("floor of no readings is not 0")
	}
}

// medianCI ends for any count of rounds: past 1074, 0.5^n underflows to 0.
func TestMedianCIManyRounds(t *testing.T) {
	q := make([]float64, 2000)
	for i := range q {
		q[i] = float64(i)
	}
	lo, hi, ok := medianCI(q)
	if !ok || lo < 950 || lo > 960 || hi < 1040 || hi > 1050 {
		t.Errorf("medianCI of 0..1999 = %g, %g, %v; want about 955 and 1044 (1000 ± 1.96 × 22.4)", lo, hi, ok)
	}
}

// The references' ratios pair their rounds and say a verdict, as the
// other tables do; a round whose reference read 0 is left out, not a NaN.
func TestReportPairsRounds(t *testing.T) {
	ms := []*measurement{
		{name: "memcpy 64MiB (1 thread)", values: []float64{100, 50, 100, 50, 100, 50, 0}},
		{name: "efaxx write shm 64MiB", values: []float64{90, 45, 90, 45, 90, 45, 10}},
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	report(ms)
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if !strings.Contains(string(out), "ratio shm write / memcpy     **0.90** (≥ 0.8), 95% CI 0.90–0.90: met, 6 of 7 rounds") {
		t.Errorf("report:\n%s", out)
	}
	if strings.Contains(string(out), "NaN") || strings.Contains(string(out), "Inf") {
		t.Errorf("report prints NaN or Inf:\n%s", out)
	}
}
