package benchmarks

import "testing"

// A write's ops are 8 MiB under the strategies that place them by
// position, 1 MiB where the chunk is the unit of spreading; every other
// benchmark keeps 1 MiB. On GPU memory every benchmark's ops are 64 MiB
// under those strategies, and 1 MiB still where the chunk is the unit.
func TestDefaultChunk(t *testing.T) {
	tests := []struct {
		bench, strategy, memory string
		want                    uint64
	}{
		{"write", "single", "host", 8 << 20},
		{"write", "split", "pinned", 8 << 20},
		{"write", "round-robin", "", 8 << 20},
		{"write", "per-op", "host", 1 << 20},
		{"write", "adaptive", "host", 1 << 20},
		{"sendrecv", "single", "host", 1 << 20},
		{"all2all", "split", "host", 1 << 20},
		{"proxy", "single", "pinned", 1 << 20},
		{"write", "single", "device", 64 << 20},
		{"write", "split", "device", 64 << 20},
		{"sendrecv", "single", "device", 64 << 20},
		{"send", "single", "device", 64 << 20},
		{"write", "adaptive", "device", 1 << 20},
		{"write", "per-op", "device", 1 << 20},
	}
	for _, tt := range tests {
		b, err := Lookup(tt.bench)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.DefaultChunk(tt.strategy, tt.memory); got != tt.want {
			t.Errorf("%s under %s on %q memory: DefaultChunk = %d, want %d", tt.bench, tt.strategy, tt.memory, got, tt.want)
		}
	}
}
