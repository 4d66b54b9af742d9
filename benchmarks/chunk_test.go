package benchmarks

import "testing"

// A write's ops are 8 MiB under the strategies that place them by
// position, 1 MiB where the chunk is the unit of spreading; every other
// benchmark keeps 1 MiB.
func TestDefaultChunk(t *testing.T) {
	tests := []struct {
		bench, strategy string
		want            uint64
	}{
		{"write", "single", 8 << 20},
		{"write", "split", 8 << 20},
		{"write", "round-robin", 8 << 20},
		{"write", "per-op", 1 << 20},
		{"write", "adaptive", 1 << 20},
		{"sendrecv", "single", 1 << 20},
		{"all2all", "split", 1 << 20},
		{"proxy", "single", 1 << 20},
	}
	for _, tt := range tests {
		b, err := Lookup(tt.bench)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.DefaultChunk(tt.strategy); got != tt.want {
			t.Errorf("%s under %s: DefaultChunk = %d, want %d", tt.bench, tt.strategy, got, tt.want)
		}
	}
}
