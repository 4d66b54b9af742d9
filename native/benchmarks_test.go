package native_test

import (
	"slices"
	"testing"

	"efaxx/benchmarks"
	"efaxx/native"
)

// TestBenchmarksAgree holds the native core's table (C, dispatched by
// name) to the benchmarks table that sweeps and efaxx-runner read: every
// benchmark efaxx-runner measures has a C entry, in the same order, and C
// has no other.
func TestBenchmarksAgree(t *testing.T) {
	got := native.Benchmarks()
	if got == nil {
		t.Skip("built without cgo: there is no native table to compare")
	}
	want := benchmarks.Names(benchmarks.Benchmark.Measured)
	if !slices.Equal(got, want) { // in order too, so that the tables read alike
		t.Errorf("native benchmarks %v, the benchmarks table measures %v", got, want)
	}
}
