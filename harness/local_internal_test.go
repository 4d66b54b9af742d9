package harness

import "testing"

func TestCounted(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 samples"}, {1, "1 sample"}, {2, "2 samples"}} {
		if got := counted(c.n, "sample"); got != c.want {
			t.Errorf("counted(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
