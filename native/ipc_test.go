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

// TestA2APlan: an ipc-all2all step has every ordered pair copy alone, in
// IPCPlan's order, one step each, then all of them at once in one step.
func TestA2APlan(t *testing.T) {
	if got, want := native.A2APlan(3), [][][2]int{{{0, 1}}, {{0, 2}}, {{1, 0}}, {{1, 2}}, {{2, 0}}, {{2, 1}},
		{{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("A2APlan(3) = %v, want %v", got, want)
	}
	for _, world := range []int{2, 4, 8} {
		steps := native.A2APlan(world)
		pairs := native.IPCPlan(world, false)
		if len(steps) != len(pairs)+1 {
			t.Fatalf("A2APlan(%d): %d steps, want %d pairs alone and one step of all", world, len(steps), len(pairs)+1)
		}
		for i, p := range pairs {
			if !reflect.DeepEqual(steps[i], [][2]int{p}) {
				t.Errorf("A2APlan(%d) step %d = %v, want %v alone", world, i, steps[i], p)
			}
		}
		if all := steps[len(pairs)]; !reflect.DeepEqual(all, pairs) {
			t.Errorf("A2APlan(%d) last step = %v, want every ordered pair at once", world, all)
		}
	}
	if got := native.A2APlan(1); len(got) != 0 {
		t.Errorf("A2APlan(1) = %v, want no step", got)
	}
}
