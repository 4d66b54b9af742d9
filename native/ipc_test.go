package native_test

import (
	"reflect"
	"testing"

	"efaxx/native"
)

// TestIPCPlan: an ipc step measures every ordered pair of its ranks once,
// source by source, or with bidir every unordered pair once.
func TestIPCPlan(t *testing.T) {
	for _, tt := range []struct {
		world int
		bidir bool
		want  [][2]int
	}{
		{2, false, [][2]int{{0, 1}, {1, 0}}},
		{2, true, [][2]int{{0, 1}}},
		{3, false, [][2]int{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}},
		{3, true, [][2]int{{0, 1}, {0, 2}, {1, 2}}},
		{1, false, [][2]int{}},
	} {
		if got := native.IPCPlan(tt.world, tt.bidir); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("IPCPlan(%d, %v) = %v, want %v", tt.world, tt.bidir, got, tt.want)
		}
	}
	for _, world := range []int{4, 8} { // every ordered pair once, none with itself
		seen := map[[2]int]bool{}
		for _, p := range native.IPCPlan(world, false) {
			if p[0] == p[1] || seen[p] {
				t.Fatalf("IPCPlan(%d): %v twice or with itself", world, p)
			}
			seen[p] = true
		}
		if len(seen) != world*(world-1) {
			t.Errorf("IPCPlan(%d): %d pairs, want %d", world, len(seen), world*(world-1))
		}
		if n := len(native.IPCPlan(world, true)); n != world*(world-1)/2 {
			t.Errorf("IPCPlan(%d, bidir): %d rounds, want %d", world, n, world*(world-1)/2)
		}
	}
}
