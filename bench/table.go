package main

import (
	"fmt"
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
	do    func() (v, other float64, err error)
	vals  []float64
	other []float64
}

// row is one line of a table: a label and a cell per column (nil where
// the column does not apply).
type row struct {
	label string
	cells []*cell
}

// ratio is a column of ratios: the median over rounds of a column over
// another, each round's pair taken together. The two were measured seconds
// apart, so a slow phase of the machine (this VM has some that last tens
// of seconds and cut loopback tcp to 40%) falls on both; a ratio of the
// columns' medians would set one column's fast rounds against the other's
// slow ones.
type ratio struct {
	name     string
	num, den int // column indexes
	goal     string
}

// table is a comparison measured in alternated rounds: every cell once
// per round, in order, so that load that comes and goes lands on every
// column alike; each shows its median.
type table struct {
	title, unit string
	cols        []string
	ratios      []ratio
	rows        []*row
	agree       []int // columns whose other side (a write's target) is shown as a ratio too
}

// measure runs one round of every cell of t.
func (t *table) measure() error {
	for _, r := range t.rows {
		for i, c := range r.cells {
			if c == nil {
				continue
			}
			v, o, err := c.do()
			if err != nil {
				return fmt.Errorf("%s, %s: %w", r.label, t.cols[i], err)
			}
			c.vals = append(c.vals, v)
			c.other = append(c.other, o)
			if verbose {
				fmt.Fprintf(os.Stderr, "bench: %s, %s: %.3f (%.3f)\n", r.label, t.cols[i], v, o)
			}
		}
	}
	return nil
}

// print writes t as a Markdown table: each cell's median, the ratios
// (paired by round), the initiator-to-target ratio of the columns in agree (the
// median of the rounds' ratios), and every round's values below.
func (t *table) print() {
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
			line = append(line, cellMedian(c))
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
			line = append(line, fmt.Sprintf("**%.2f**", pairedRatio(n.vals, d.vals))+q.goal)
		}
		fmt.Println("| " + strings.Join(line, " | ") + " |")
	}
	fmt.Println()
	for _, r := range t.rows {
		for i, c := range r.cells {
			if c != nil {
				fmt.Printf("    %-12s %-34s rounds %s\n", r.label, t.cols[i], join(c.vals))
			}
		}
	}
}

func cellMedian(c *cell) string {
	if c == nil {
		return ""
	}
	return num(median(c.vals))
}

// num formats v with 3 significant digits, at least 2 decimals.
func num(v float64) string {
	if v >= 100 || v == 0 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// pairedRatio is the median over rounds of num's value over den's.
func pairedRatio(num, den []float64) float64 {
	var q []float64
	for i := range min(len(num), len(den)) {
		if den[i] > 0 {
			q = append(q, num[i]/den[i])
		}
	}
	return median(q)
}

// agreement is the median over rounds of the number over its other side's.
func agreement(c *cell) string {
	if c == nil || !slices.ContainsFunc(c.other, func(o float64) bool { return o > 0 }) {
		return ""
	}
	return strconv.FormatFloat(pairedRatio(c.vals, c.other), 'f', 3, 64)
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
