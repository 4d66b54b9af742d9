package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"efaxx/results"
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
