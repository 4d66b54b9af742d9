package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// cell is one number of a comparison table, measured once per round.
type cell struct {
	// do measures: the number, and where the run has one, the other
	// side's view of it (a write target's rate beside its initiator's; 0
	// when none).
	do func() (v, other float64, err error)
	// around, where set, gives the readings of the ranks' cores (cores.go)
	// that do's value was measured between, when do reads them itself (a
	// sweep's sizes come from one run); otherwise the table reads them
	// around do.
	around func() [2]float64
	vals   []float64
	other  []float64
	// arounds holds each round's two readings, before and after: a value
	// read with the cores apart is left out of medians and ratios.
	arounds [][2]float64
}

// kept reports whether round i of c was measured with the ranks' cores
// near each other, as held against the run's floor.
func (c *cell) kept(i int, floor float64) bool { return near(c.arounds[i], floor) }

// row is one line of a table: a label and a cell per column (nil where
// the column does not apply).
type row struct {
	label string
	cells []*cell
}

// ratio is a column of ratios: the median over rounds of a column over
// another, each round's pair taken together, in the rounds where both were
// measured with the ranks' cores near (cores.go). The two were measured
// seconds apart; a ratio of the columns' medians would set one column's
// rounds with the cores near against the other's with them apart.
type ratio struct {
	name     string
	num, den int // column indexes
	goal     goal
}

// goal is the range a ratio aims for; 0 leaves a side open, and a ratio
// without a goal (both 0) is shown only.
type goal struct{ lo, hi float64 }

func (g goal) String() string {
	switch {
	case g.lo > 0 && g.hi > 0:
		return fmt.Sprintf(" (%g to %g)", g.lo, g.hi)
	case g.lo > 0:
		return fmt.Sprintf(" (≥ %g)", g.lo)
	case g.hi > 0:
		return fmt.Sprintf(" (≤ %g)", g.hi)
	}
	return ""
}

// verdict tells whether a median whose confidence interval is [a, b]
// meets g: met when the whole interval does, missed when none of it
// does, and otherwise not told apart from the noise of the rounds.
func (g goal) verdict(a, b float64) string {
	inside := func(v float64) bool { return (g.lo == 0 || v >= g.lo) && (g.hi == 0 || v <= g.hi) }
	switch {
	case g.lo == 0 && g.hi == 0:
		return ""
	case inside(a) && inside(b):
		return "met"
	case (g.lo > 0 && b < g.lo) || (g.hi > 0 && a > g.hi):
		return "missed"
	}
	return "not told apart"
}

// table is a comparison measured in alternated rounds: every cell once
// per round, in order or in reverse (measure), so that load that comes
// and goes lands on every column alike; each shows its median.
type table struct {
	title, unit string
	cols        []string
	ratios      []ratio
	rows        []*row
	agree       []int // columns whose other side (a write's target) is shown as a ratio too
	lower       bool  // lower is better (latency): the best of a cell's measurements is its least
}

// retakes is how many times a measurement read with the ranks' cores apart
// is taken again, at once, before its round keeps it as it is: the cores
// stay apart for seconds to tens of seconds at a time here.
const retakes = 3

// take measures c once, with the readings of the cores around it: its
// own where it reads them, else the table's.
func (c *cell) take(cs cores) (v, o float64, around [2]float64, err error) {
	if c.around != nil {
		if v, o, err = c.do(); err == nil {
			around = c.around()
		}
		return v, o, around, err
	}
	if around[0], err = cs.read(); err != nil {
		return 0, 0, around, err
	}
	if v, o, err = c.do(); err != nil {
		return 0, 0, around, err
	}
	around[1], err = cs.read()
	return v, o, around, err
}

// measure runs round n of every cell of t: best measurements of each
// (the best kept, below), each between two readings of the ranks' cores,
// a measurement taken again while they read apart from the floor of the
// run's readings so far (rd, which it adds to). It returns how
// many measurements it took again. A row's cells run in order in even
// rounds and in reverse in odd ones: what a measurement leaves behind
// lands on the next one (on the development VM a process that ran right
// after one that freed 2 GiB ran about 20% slower, fabtests and efaxx
// alike), and no column may always come after the same other.
//
// Loopback tcp has a slow state that lasts one run, fabtests' or
// efaxx's, and that the cores' readings do not see (a third of the rate,
// in one run of five here): with best above 1 a round keeps each cell's
// best measurement read near, so that a pair compares the two in their
// usual state rather than whichever drew the slow one.
func (t *table) measure(cs cores, rd *readings, n, best int) (int, error) {
	again := 0
	for _, r := range t.rows {
		for k := range r.cells {
			i := k
			if n%2 == 1 {
				i = len(r.cells) - 1 - k
			}
			c := r.cells[i]
			if c == nil {
				continue
			}
			var kept taken
			for b := 0; b < max(1, best); b++ {
				m, retaken, err := takeNear(c, cs, rd, r.label+", "+t.cols[i])
				if err != nil {
					return 0, err
				}
				again += retaken
				if b == 0 || t.better(m, kept, rd.floor()) {
					kept = m
				}
			}
			c.vals = append(c.vals, kept.v)
			c.other = append(c.other, kept.o)
			c.arounds = append(c.arounds, kept.around)
		}
	}
	return again, nil
}

// taken is one measurement of a cell and the cores' readings around it.
type taken struct {
	v, o   float64
	around [2]float64
}

// better reports whether m is to be kept over k: read near where k was
// not, else the faster (the lower where lower is better).
func (t *table) better(m, k taken, floor float64) bool {
	if near(m.around, floor) != near(k.around, floor) {
		return near(m.around, floor)
	}
	if t.lower {
		return m.v < k.v
	}
	return m.v > k.v
}

// takeNear measures c, again while the cores read apart (up to retakes
// times), and adds its readings to rd; it returns the last
// measurement and how many it took again.
func takeNear(c *cell, cs cores, rd *readings, name string) (taken, int, error) {
	for try := 0; ; try++ {
		var m taken
		var err error
		if m.v, m.o, m.around, err = c.take(cs); err != nil {
			return m, 0, fmt.Errorf("%s: %w", name, err)
		}
		for _, a := range m.around {
			rd.add(a)
		}
		if verbose {
			fmt.Fprintf(os.Stderr, "bench: %s: %.3f (%.3f), cores %.0f/%.0f ns\n", name, m.v, m.o, m.around[0], m.around[1])
		}
		if near(m.around, rd.floor()) || try == retakes {
			return m, try, nil
		}
	}
}

// print writes t as a Markdown table: each cell's median, the ratios
// (paired by round), the initiator-to-target ratio of the columns in agree (the
// median of the rounds' ratios), and every round's values below; medians
// and ratios keep the rounds measured with the cores near, as in the
// run's floor.
func (t *table) print(floor float64) {
	fmt.Printf("\n### %s (%s)\n\n", t.title, t.unit)
	head := append([]string{""}, t.cols...)
	for _, a := range t.agree {
		head = append(head, t.cols[a]+": initiator/target")
	}
	for _, r := range t.ratios {
		head = append(head, r.name)
	}
	fmt.Println("| " + strings.Join(head, " | ") + " |")
	fmt.Println(strings.Repeat("|---", len(head)) + "|")
	for _, r := range t.rows {
		line := []string{r.label}
		for _, c := range r.cells {
			line = append(line, cellMedian(c, floor))
		}
		for _, a := range t.agree {
			line = append(line, agreement(r.cells[a]))
		}
		for _, q := range t.ratios {
			n, d := r.cells[q.num], r.cells[q.den]
			if n == nil || d == nil {
				line = append(line, "")
				continue
			}
			line = append(line, ratioCell(pairedRatios(n, d, floor), len(n.vals), q.goal))
		}
		fmt.Println("| " + strings.Join(line, " | ") + " |")
	}
	fmt.Println()
	for _, r := range t.rows {
		for i, c := range r.cells {
			if c != nil {
				fmt.Printf("    %-12s %-34s rounds %s\n", r.label, t.cols[i], c.rounds(floor))
			}
		}
	}
	fmt.Printf("\n    * measured with the ranks' cores apart (a round trip between them over %.1f x the run's floor, %.0f ns, its readings' 10th percentile,"+
		" after %d tries): left out of medians and ratios\n", apart, floor, retakes+1)
}

// rounds lists c's values, those measured with the cores apart marked *.
func (c *cell) rounds(floor float64) string {
	parts := make([]string, len(c.vals))
	for i, v := range c.vals {
		parts[i] = num(v)
		if !c.kept(i, floor) {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, " ")
}

// cellMedian is the median of c's rounds measured with the cores near;
// "-" when there are none.
func cellMedian(c *cell, floor float64) string {
	if c == nil {
		return ""
	}
	var v []float64
	for i, x := range c.vals {
		if c.kept(i, floor) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return "-"
	}
	return num(median(v))
}

// ratioCell shows the median of a pair's per-round ratios q, its 95%
// confidence interval and what it says of the goal g (medianCI; with too
// few rounds for one, the rounds' range), and, when some rounds were left
// out, how many it keeps.
func ratioCell(q []float64, rounds int, g goal) string {
	if len(q) == 0 {
		return "- (no round with the cores near)"
	}
	s := fmt.Sprintf("**%.2f**", median(q)) + g.String()
	if a, b, ok := medianCI(q); ok {
		s += fmt.Sprintf(", 95%% CI %.2f–%.2f", a, b)
		if v := g.verdict(a, b); v != "" {
			s += ": " + v
		}
	} else if len(q) > 1 {
		s += fmt.Sprintf(", rounds %.2f–%.2f (too few for a 95%% CI)", slices.Min(q), slices.Max(q))
	}
	if len(q) < rounds {
		s += fmt.Sprintf(", %d of %d rounds", len(q), rounds)
	}
	return s
}

// medianCI is a 95% confidence interval for the median of the population
// that q's values are drawn from, without assuming its shape: the k-th
// smallest and k-th largest value, k the largest rank with
// P(Binomial(n, 1/2) < k) <= 2.5% (n = 9: the 2nd and 8th of 9; n = 15:
// the 4th and 12th). It needs 6 values at least.
func medianCI(q []float64) (lo, hi float64, ok bool) {
	n := len(q)
	// P(X = k) from logarithms: 0.5^n alone underflows past 1074 rounds
	pmf := func(k int) float64 {
		a, _ := math.Lgamma(float64(n + 1))
		b, _ := math.Lgamma(float64(k + 1))
		c, _ := math.Lgamma(float64(n - k + 1))
		return math.Exp(a - b - c - float64(n)*math.Ln2)
	}
	k, tail := 0, 0.0
	for k < n/2 && tail+pmf(k) <= 0.025 {
		tail += pmf(k)
		k++
	}
	if k == 0 {
		return 0, 0, false
	}
	s := slices.Clone(q)
	slices.Sort(s)
	return s[k-1], s[n-k], true
}

// num formats v with 3 significant digits, at least 2 decimals.
func num(v float64) string {
	if v >= 100 || v == 0 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// pairedRatios are num's values over den's, round by round, of the rounds
// in which both were measured with the cores near.
func pairedRatios(num, den *cell, floor float64) []float64 {
	var q []float64
	for i := range min(len(num.vals), len(den.vals)) {
		if den.vals[i] > 0 && num.kept(i, floor) && den.kept(i, floor) {
			q = append(q, num.vals[i]/den.vals[i])
		}
	}
	return q
}

// agreement is the median over rounds of the number over its other side's,
// both from the same run: every round counts.
func agreement(c *cell) string {
	if c == nil || !slices.ContainsFunc(c.other, func(o float64) bool { return o > 0 }) {
		return ""
	}
	var q []float64
	for i, o := range c.other {
		if o > 0 {
			q = append(q, c.vals[i]/o)
		}
	}
	return strconv.FormatFloat(median(q), 'f', 3, 64)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func join(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = num(x)
	}
	return strings.Join(parts, " ")
}

// sizeName writes a size as 64B, 4KiB, 1MiB.
func sizeName(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
