package native

import (
	"fmt"
	"testing"
)

// TestCheckRanks: the rank range comes from the benchmarks table, which
// the C table does not repeat; the most ranks are enforced too (queue ran
// on 2 ranks).
func TestCheckRanks(t *testing.T) {
	tests := []struct {
		bench string
		world int
		err   string
	}{
		{"write", 1, "write needs at least 2 ranks, got 1"},
		{"write", 2, ""},
		{"write", 65536, ""},
		{"write", 65537, "write runs on at most 65536 ranks, got 65537"},
		{"ipc", 1, "ipc needs at least 2 ranks, got 1"},
		{"ipc", 64, ""},
		{"ipc", 65, "ipc runs on at most 64 ranks, got 65"},
		{"queue", 1, ""},
		{"queue", 2, "queue runs on 1 rank, got 2: launch it with -np 1"},
		{"nonesuch", 1, ""}, // the C table names an unknown benchmark
	}
	for _, tt := range tests {
		err := checkRanks(tt.bench, tt.world)
		if got := fmt.Sprint(err); (err == nil) != (tt.err == "") || (err != nil && got != tt.err) {
			t.Errorf("checkRanks(%q, %d) = %v, want %q", tt.bench, tt.world, err, tt.err)
		}
	}
}
