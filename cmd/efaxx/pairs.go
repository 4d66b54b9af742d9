package main

import (
	"fmt"
	"io"
	"slices"
	"sort"

	"efaxx/bytesize"
	"efaxx/results"
)

// printPairs prints, for a run that measured more than one pair of ranks
// (ipc over every pair of a node's GPUs, an nvbandwidth import), a matrix
// per variant at the largest size: rank (row) to peer (column) in the
// run's unit, and names the weakest pair against the median pair.
func printPairs(w io.Writer, unit string, size uint64, pairs []results.PairStat) {
	byVariant := map[string][]results.PairStat{}
	var variants []string
	for _, p := range pairs {
		if _, ok := byVariant[p.Variant]; !ok {
			variants = append(variants, p.Variant)
		}
		byVariant[p.Variant] = append(byVariant[p.Variant], p)
	}
	for _, v := range variants {
		ps := byVariant[v]
		if len(ps) < 2 {
			continue
		}
		n := 0
		cell := map[[2]int]float64{}
		for _, p := range ps {
			n = max(n, p.Rank+1, p.Peer+1)
			cell[[2]int{p.Rank, p.Peer}] = p.Value
		}
		fmt.Fprintf(w, "\npairs at %s, %s, %s: row moved the data, column is the other rank\n", bytesize.Format(size), dash(v), unit)
		fmt.Fprintf(w, "%6s", "")
		for c := 0; c < n; c++ {
			fmt.Fprintf(w, " %9d", c)
		}
		fmt.Fprintln(w)
		for r := 0; r < n; r++ {
			fmt.Fprintf(w, "%6d", r)
			for c := 0; c < n; c++ {
				if x, ok := cell[[2]int{r, c}]; ok {
					fmt.Fprintf(w, " %9.2f", x)
				} else {
					fmt.Fprintf(w, " %9s", "-")
				}
			}
			fmt.Fprintln(w)
		}
		vals := make([]float64, len(ps))
		for i, p := range ps {
			vals[i] = p.Value
		}
		sort.Float64s(vals)
		median := vals[len(vals)/2]
		if len(vals)%2 == 0 {
			median = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
		}
		weak := slices.MinFunc(ps, func(a, b results.PairStat) int {
			if a.Value != b.Value {
				if a.Value < b.Value {
					return -1
				}
				return 1
			}
			return 0
		})
		fmt.Fprintf(w, "weakest pair: %d -> %d at %.2f %s, %.2f of the median pair (%.2f)\n", weak.Rank, weak.Peer,
			weak.Value, unit, weak.Value/median, median)
	}
}

// printAllToAll prints an ipc-all2all run's aggregate per size and method
// against the sum of its ordered pairs' rates alone, measured in the same
// run: the ratio says what sharing costs when every GPU writes, on the
// run's schedule (its parameter; runs from before it had one were at once).
func printAllToAll(w io.Writer, schedule any, stats []results.AllToAllStat) {
	if len(stats) == 0 {
		return
	}
	how := "at once"
	if schedule == "shifted" {
		how = "one peer at a time (shifted: rank+1 first)"
	}
	fmt.Fprintf(w, "\nall-to-all: every GPU writing into every other %s, against the sum of the ordered pairs each alone (GB/s)\n", how)
	fmt.Fprintf(w, "%8s  %-10s %5s %5s  %10s  %12s  %5s\n", "size", "method", "ranks", "pairs", "aggregate", "sum of pairs", "ratio")
	for _, s := range stats {
		fmt.Fprintf(w, "%8s  %-10s %5d %5d  %10.2f  %12.2f  %5.3f\n", bytesize.Format(s.Size), s.Method, s.Ranks, s.Pairs,
			s.Aggregate, s.SumPairs, s.Ratio())
	}
	fmt.Fprintln(w, "aggregate: every rank's bytes over the slowest rank's time (the ranks start together after a barrier)")
}
