package main

import (
	"context"
	"fmt"
	"io"

	"efaxx/bytesize"
	"efaxx/results"
)

type showRanksRecord struct {
	Run *results.Run `json:"run"`
	*results.Spread
}

// runShowRanks prints the spread of run id across its ranks: per size,
// then the slowest ranks, hosts and (when the samples used several) rails,
// as tables (table and csv) or one JSON object.
func runShowRanks(ctx context.Context, w, stderr io.Writer, dbPath, format string, id int64, m results.Metric, top int) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	db, err := openStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	r, err := db.Run(ctx, id)
	if err != nil {
		return err
	}
	sp, err := db.RankSpread(ctx, id, m, top)
	if err != nil {
		return err
	}
	if len(sp.Sizes) == 0 { // pct_link without a known link speed, a run that stored no samples
		return fmt.Errorf("show --ranks %d: no sample of run %d has a value of %s", id, id, m.Name)
	}
	if format == "json" {
		return writeTable(w, format, &table{records: showRanksRecord{Run: r, Spread: sp}})
	}
	if format == "table" {
		if err := printRunHeader(ctx, w, db, r); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for i, t := range spreadTables(sp) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := writeTable(w, format, t); err != nil {
			return err
		}
	}
	noteRunNotOK(stderr, format, r)
	return nil
}

// spreadTables lays out a spread as its three tables.
func spreadTables(sp *results.Spread) []*table {
	unit := " (" + sp.Metric.Unit + ")"
	sizes := &table{header: []string{"SIZE", "SAMPLES", "MEDIAN" + unit, "WORST" + unit, "BEST" + unit,
		"WORST/MEDIAN", "SLOWEST RANK", "HOST"}}
	for _, s := range sp.Sizes {
		sizes.add(bytesize.Format(s.Size), fmt.Sprint(s.Samples), num(s.Median), num(s.Worst), num(s.Best),
			ratio(s.Worst, s.Median), fmt.Sprint(s.Slowest), dash(s.Host))
	}
	ranks := &table{header: []string{"SLOWEST RANKS", "HOST", "LOCAL RANK", "TYPICAL SPEED", "WORST SPEED", "AT SIZE"}}
	for _, r := range sp.Ranks {
		local := "-"
		if r.LocalRank != nil {
			local = fmt.Sprint(*r.LocalRank)
		}
		ranks.add(fmt.Sprint(r.Rank), dash(r.Host), local, fmt.Sprintf("%.2f", r.Typical), fmt.Sprintf("%.2f", r.Worst),
			bytesize.Format(r.WorstSize))
	}
	hosts := &table{header: []string{"SLOWEST HOSTS", "RANKS", "TYPICAL SPEED", "WORST SPEED"}}
	for _, h := range sp.Hosts {
		hosts.add(h.Host, fmt.Sprint(h.Ranks), fmt.Sprintf("%.2f", h.Typical), fmt.Sprintf("%.2f", h.Worst))
	}
	out := []*table{sizes, ranks, hosts}
	if len(sp.Rails) > 0 {
		rails := &table{header: []string{"SLOWEST RAILS", "SAMPLES", "TYPICAL SPEED", "WORST SPEED"}}
		for _, r := range sp.Rails {
			rails.add(r.Rails, fmt.Sprint(r.Samples), fmt.Sprintf("%.2f", r.Typical), fmt.Sprintf("%.2f", r.Worst))
		}
		out = append(out, rails)
	}
	return out
}

// ratio formats a/b, or "-" when b is 0.
func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}
