package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"efaxx/results"
	"efaxx/results/record"
	"efaxx/results/synth"
)

// TestSelector: the terms of a compare side, time windows with RFC 3339
// ends (colons and all) among them.
func TestSelector(t *testing.T) {
	now := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		term string
		want results.RunFilter
	}{
		{"2026-11-25T05:55:00Z..2026-11-25T05:55:25Z",
			results.RunFilter{Since: at("2026-11-25T05:55:00Z"), Until: at("2026-11-25T05:55:25Z")}},
		{"2026-11-25T05:55:25+01:00..now", results.RunFilter{Since: at("2026-11-25T05:55:25+01:00")}},
		{"now-14d..now-7d", results.RunFilter{Since: now.Add(-14 * 24 * time.Hour), Until: now.Add(-7 * 24 * time.Hour)}},
		{"sweep:a..b", results.RunFilter{Sweep: "a..b"}},
		{"status:ok", results.RunFilter{Status: "ok"}},
		{"12,13", results.RunFilter{IDs: []int64{12, 13}}},
	}
	for _, tt := range tests {
		got, err := selector([]string{tt.term}, results.RunFilter{}, now)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("selector(%q) = %+v, %v; want %+v", tt.term, got, err, tt.want)
		}
	}
	for _, bad := range []string{"bogus:1", "2026-11-25T05:55:00Z", "2026-11-25T05:55:00Z..yesterday", "x"} {
		if _, err := selector([]string{bad}, results.RunFilter{}, now); err == nil {
			t.Errorf("selector(%q) = nil error, want one", bad)
		}
	}
}

// TestCompareOneRunASide: counts in the output agree with their number:
// "needs 1 run a side", never "1 runs".
func TestCompareOneRunASide(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}},
		&synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}})
	_, stdout, stderr := efaxx(t, "--db", db, "compare", "--min-runs", "1", "1", "2")
	if !strings.Contains(stdout, "a verdict needs 1 run a side") || strings.Contains(stdout+stderr, " 1 runs") {
		t.Errorf("efaxx compare --min-runs 1 1 2 does not say 1 run:\n%s%s", stdout, stderr)
	}
}

// TestCompareVariants: compare and query give each variant of a run's
// samples a row of its own, named, as show does: the queue's ring apart
// from the floor measured beside it.
func TestCompareVariants(t *testing.T) {
	var runs []*synth.Run
	for i := range 10 {
		ring := uint64(1000 + 250*(i/5) + i%5) // runs 6-10: the ring 20% slower
		runs = append(runs, &synth.Run{UID: fmt.Sprint("q", i), Benchmark: "queue", Ranks: 1, Sizes: []uint64{64},
			Params: map[string]any{"mode": "nbi"}, Samples: synth.QueueSamples(ring)})
	}
	db := writeSynth(t, runs...)
	code, stdout, stderr := efaxx(t, "--db", db, "compare", "--metric", "mops", "--format", "csv", "1,2,3,4,5", "6,7,8,9,10")
	if code != 1 || !strings.HasPrefix(stdout, "BENCHMARK,SIZE,VARIANT,A RUNS,") || !strings.Contains(stdout, "\nqueue,64B,floor,5,3.333,5,3.333,1.000,") ||
		!strings.Contains(stdout, "\nqueue,64B,ring,5,") || !strings.HasSuffix(stdout, ",REGRESSION\n") {
		t.Errorf("efaxx compare of queue runs = %d, want 1, the floor unchanged and the ring a regression, a row each:\n%s%s",
			code, stdout, stderr)
	}
	code, stdout, stderr = efaxx(t, "--db", db, "query", "--benchmark", "queue", "--format", "csv")
	if code != 0 || !strings.HasPrefix(stdout, "BENCHMARK,SIZE,VARIANT,RUNS,") || strings.Count(stdout, "\n") != 3 {
		t.Errorf("efaxx query --benchmark queue = %d, want a row for the floor and one for the ring:\n%s%s", code, stdout, stderr)
	}
}

// TestCompareZeroMedian: a side whose median is 0 (a latency a tool did
// not print) makes B/A +Inf: the table says so, and JSON writes null,
// with the verdict's exit status, where it failed with "json:
// unsupported value: +Inf" (exit 3).
func TestCompareZeroMedian(t *testing.T) {
	var runs []*synth.Run
	for i := range 10 {
		lat := uint64(100 * (i / 5)) // runs 1-5: no latency; 6-10: 100 ns
		runs = append(runs, &synth.Run{UID: fmt.Sprint("z", i), Ranks: 2, Sizes: []uint64{64},
			Samples: func(rank int, _ uint64) []record.Sample {
				return []record.Sample{{Peer: 1 - rank, Role: "initiator", BytesSent: 64, Iterations: 1000, ElapsedNs: 1e6 + uint64(i),
					Lat: record.Lat{P50: lat, P99: lat, Max: lat}}}
			}})
	}
	db := writeSynth(t, runs...)
	code, stdout, stderr := efaxx(t, "--db", db, "compare", "--metric", "lat_us", "--format", "json", "1,2,3,4,5", "6,7,8,9,10")
	var c struct {
		Rows []struct {
			Ratio   *float64
			Verdict string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || code != 1 || len(c.Rows) != 1 || c.Rows[0].Ratio != nil ||
		c.Rows[0].Verdict != "regression" {
		t.Errorf("efaxx compare --format json of a median of 0 = %d, %+v, %v; want 1, ratio null, a regression\n%s%s",
			code, c, err, stdout, stderr)
	}
	if code, stdout, _ := efaxx(t, "--db", db, "compare", "--metric", "lat_us", "--format", "csv", "1,2,3,4,5", "6,7,8,9,10"); code != 1 ||
		!strings.Contains(stdout, ",+Inf,-,") {
		t.Errorf("efaxx compare --format csv of a median of 0 = %d, want 1, B/A +Inf and no interval:\n%s", code, stdout)
	}
}

// TestCompareNotOK: a side's runs that did not end ok are left out and
// named, unless it selects a status itself. They were compared as any
// other: a new build whose every run failed compared "~" with the old
// one, exit 0, a pass.
func TestCompareNotOK(t *testing.T) {
	var runs []*synth.Run
	for i := range 10 {
		r := &synth.Run{UID: fmt.Sprint("r", i), Ranks: 2, Sizes: []uint64{4096}, Seed: uint64(i + 1), Noise: 0.01}
		if i >= 5 { // runs 6-10 failed
			r.Fail = "verification failed at 4096 B"
		}
		runs = append(runs, r)
	}
	db := writeSynth(t, runs...)
	code, _, stderr := efaxx(t, "--db", db, "compare", "1,2,3,4,5", "6,7,8,9,10")
	if code != 3 || stderr != "efaxx: compare 1,2,3,4,5 with 6,7,8,9,10: side B selects no run that ended ok "+
		"(runs 6-10 did not; status:STATUS or --status compares them)\n" {
		t.Errorf("efaxx compare of ok runs with failed ones = %d, %q; want 3, side B has no run that ended ok", code, stderr)
	}
	code, stdout, _ := efaxx(t, "--db", db, "compare", "1,2,3,4", "5,6")
	if code != 0 || !strings.Contains(stdout, "left out of B: run 6, which did not end ok") || !strings.Contains(stdout, "(4 runs in A, 1 run in B:") {
		t.Errorf("efaxx compare 1,2,3,4 5,6 = %d, want run 6 left out and named:\n%s", code, stdout)
	}
	code, stdout, _ = efaxx(t, "--db", db, "compare", "--format", "json", "1,2,3,4", "5,6")
	var c struct {
		NotOKA []int64 `json:"not_ok_a"`
		NotOKB []int64 `json:"not_ok_b"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil || code != 0 || c.NotOKA == nil || len(c.NotOKA) != 0 ||
		len(c.NotOKB) != 1 || c.NotOKB[0] != 6 {
		t.Errorf("efaxx compare --format json 1,2,3,4 5,6 = %d, %+v, %v; want not_ok_a [], not_ok_b [6]", code, c, err)
	}
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--status", "failed", "6,7", "8,9"); code != 0 {
		t.Errorf("efaxx compare --status failed 6,7 8,9 = %d, %q; want 0: the status chosen compares them", code, stderr)
	}
}

// TestCompareBaselineNotOK: compare --baseline leaves out, and names, the
// selected runs that did not end ok, as compare does.
func TestCompareBaselineNotOK(t *testing.T) {
	var runs []*synth.Run
	for i := range 7 {
		r := &synth.Run{UID: fmt.Sprint("w", i), Ranks: 4, Sizes: []uint64{1 << 20}, Noise: 0.01, Seed: uint64(i + 1),
			Params: map[string]any{"provider": "efa", "memory": "device", "strategy": "single", "ranks": 4, "nodes": 4}}
		if i == 6 {
			r.Fail = "rank 0: timed out"
		}
		runs = append(runs, r)
	}
	db := writeSynth(t, runs...)
	if code, stdout, stderr := efaxx(t, "--db", db, "import", "baseline", "libefaxx-p5"); code != 0 {
		t.Fatalf("efaxx import baseline = %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr := efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "--variant", "SingleDMA", "sweep:synth")
	if code != 0 || !strings.Contains(stdout, "64.230     6 ") ||
		!strings.Contains(stdout, "runs left out: 7, which did not end ok") {
		t.Errorf("efaxx compare --baseline of 6 ok runs and a failed one = %d, want the 6 compared, run 7 named:\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--baseline", "libefaxx-p5", "7"); code != 3 ||
		!strings.Contains(stderr, "7 selects no run that ended ok (run 7 did not;") {
		t.Errorf("efaxx compare --baseline libefaxx-p5 7 = %d, %q; want 3, no run that ended ok", code, stderr)
	}
}

// TestCompareNoValue: a metric that no sample of a side has a value of
// (pct_link without a known link speed) is said to be so. compare said
// the sides had no benchmark, parameters and size in common, and show
// --ranks failed on SQL ("converting NULL to float64 is unsupported").
func TestCompareNoValue(t *testing.T) {
	db := writeSynth(t, &synth.Run{UID: "a", Ranks: 2, Sizes: []uint64{4096}}, &synth.Run{UID: "b", Ranks: 2, Sizes: []uint64{4096}, Seed: 2})
	if code, _, stderr := efaxx(t, "--db", db, "compare", "--metric", "pct_link", "1", "2"); code != 3 ||
		stderr != "efaxx: compare 1 with 2: no sample of side A has a value of pct_link\n" {
		t.Errorf("efaxx compare --metric pct_link 1 2 = %d, %q; want 3, side A has no value of pct_link", code, stderr)
	}
	if code, _, stderr := efaxx(t, "--db", db, "show", "--ranks", "--metric", "pct_link", "1"); code != 3 ||
		stderr != "efaxx: show --ranks 1: no sample of run 1 has a value of pct_link\n" {
		t.Errorf("efaxx show --ranks --metric pct_link 1 = %d, %q; want 3, no value of pct_link", code, stderr)
	}
}

// TestSelectorWindowNarrows: a side's time window narrows what --since,
// --until and its other terms select, as every term does. It replaced
// them: compare --since now-7d now-30d..now-20d ... took runs of 30 days
// ago into A.
func TestSelectorWindowNarrows(t *testing.T) {
	now := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	common := results.RunFilter{Since: now.Add(-7 * day), Until: now.Add(-1 * day)}
	for _, tt := range []struct {
		terms        []string
		since, until time.Time
	}{
		{[]string{"now-30d..now-20d"}, now.Add(-7 * day), now.Add(-20 * day)}, // selects nothing, as asked
		{[]string{"now-3d..now"}, now.Add(-3 * day), now.Add(-1 * day)},
		{[]string{"now-10d..now-2d", "now-5d..now"}, now.Add(-5 * day), now.Add(-2 * day)},
	} {
		got, err := selector(tt.terms, common, now)
		if err != nil || !got.Since.Equal(tt.since) || !got.Until.Equal(tt.until) {
			t.Errorf("selector(%q) with --since now-7d --until now-1d = %v..%v, %v; want %v..%v",
				tt.terms, got.Since, got.Until, err, tt.since, tt.until)
		}
	}
}

// TestCompareWeakNote: where the rows tested have too few runs for a lone
// difference to be significant among them, the table says so, as JSON's
// note did: 4 runs a side over 4 sizes, one of them 20% slower, is "~"
// everywhere, and the table read as a pass.
func TestCompareWeakNote(t *testing.T) {
	sizes := []uint64{4096, 65536, 1 << 20, 16 << 20}
	all := map[int]float64{0: 1.25, 1: 1.25}
	var runs []*synth.Run
	for i := range 8 {
		r := &synth.Run{UID: fmt.Sprint("r", i), Ranks: 2, Sizes: sizes, Noise: 0.01, Seed: uint64(i + 1)}
		if i >= 4 {
			r.Slow, r.SlowSizes = all, map[uint64]bool{65536: true}
		}
		runs = append(runs, r)
	}
	db := writeSynth(t, runs...)
	code, stdout, _ := efaxx(t, "--db", db, "compare", "1,2,3,4", "5,6,7,8")
	if code != 0 || !strings.Contains(stdout, "4 rows: 4 ~\n") ||
		!strings.Contains(stdout, "\nnote: 4 of the 4 rows tested cannot be significant alone: their runs reach p = 0.029 at best") {
		t.Errorf("efaxx compare of 4 runs a side over 4 sizes = %d, want 0, every row ~ and the note:\n%s", code, stdout)
	}
}
