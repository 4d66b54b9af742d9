package harness

import (
	"testing"

	"efaxx/benchmarks"
)

// TestBenchmarkKeysAreParams holds the benchmarks table to the params: a
// key that a row names and no param reads would be a typo that makes the
// param it meant apply to every benchmark.
func TestBenchmarkKeysAreParams(t *testing.T) {
	for _, k := range benchmarks.RestrictedKeys() {
		if paramOf("", k) == nil {
			t.Errorf("the benchmarks table names key %q, which is not a key of [params]", k)
		}
	}
}
