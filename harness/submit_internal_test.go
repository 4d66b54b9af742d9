package harness

import "testing"

// TestPlanFilePoint: point finds each planned point by its index, in a
// plan of some points of a sweep only, as submit writes one, and names an
// index the plan does not hold.
func TestPlanFilePoint(t *testing.T) {
	pf := &planFile{Session: "s1", Points: []plannedStep{{Index: 3, Hash: "a"}, {Index: 5, Hash: "b"}, {Index: 9, Hash: "c"}}}
	for _, tt := range []struct {
		index int
		hash  string
		err   string
	}{
		{5, "b", ""}, {3, "a", ""}, {9, "c", ""},
		{4, "", "plan of session s1 has no point 4"}, {0, "", "plan of session s1 has no point 0"},
	} {
		pt, err := pf.point(tt.index)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("point(%d) = %v, want error %q", tt.index, err, tt.err)
		case tt.err == "" && (err != nil || pt.Hash != tt.hash || pt.Index != tt.index):
			t.Errorf("point(%d) = %+v, %v, want hash %s", tt.index, pt, err, tt.hash)
		}
	}
}
