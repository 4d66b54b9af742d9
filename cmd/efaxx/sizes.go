package main

import (
	"fmt"

	"efaxx/harness"
	"efaxx/results"
)

// sizeHeader is the header of a per-size table, after the given columns.
func sizeHeader(lead ...string) []string {
	return append(lead, "SIZE", "SAMPLES", "LAT P50 (us)", "GBPS MIN", "GBPS MEDIAN", "GBPS MAX")
}

// sizeCells formats one size's aggregate: latency one-way in µs, bandwidth
// in Gbps across the run's rank samples.
func sizeCells(st results.SizeStat) []string {
	return []string{
		harness.FormatSize(st.Size), fmt.Sprint(st.Ranks), fmt.Sprintf("%.2f", st.LatP50Ns/1e3),
		fmt.Sprintf("%.3f", st.BwMinGbps), fmt.Sprintf("%.3f", st.BwMedianGbps), fmt.Sprintf("%.3f", st.BwMaxGbps),
	}
}
