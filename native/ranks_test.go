package native

import "testing"

// TestCheckRanks: the fewest ranks come from the benchmarks table, which
// the C table no longer repeats.
func TestCheckRanks(t *testing.T) {
	tests := []struct {
		bench string
		world int
		ok    bool
	}{
		{"write", 1, false},
		{"write", 2, true},
		{"ipc", 1, false},
		{"queue", 1, true},
		{"nonesuch", 1, true}, // the C table names an unknown benchmark
	}
	for _, tt := range tests {
		if err := checkRanks(tt.bench, tt.world); (err == nil) != tt.ok {
			t.Errorf("checkRanks(%q, %d) = %v, want ok %v", tt.bench, tt.world, err, tt.ok)
		}
	}
}
