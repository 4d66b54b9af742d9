package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

// normal returns n values of mean mu and relative spread sd, from seed.
func normal(n int, mu, sd float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := make([]float64, n)
	for i := range v {
		v[i] = mu * (1 + sd*rng.NormFloat64())
	}
	return v
}

func TestRatioCI(t *testing.T) {
	bs := Bootstrap{Seed: 1}
	tests := []struct {
		name         string
		a, b         []float64
		wantIncludes float64 // the interval must hold this ratio
		wantExcludes float64 // and must not hold this one
	}{
		{"same distribution", normal(64, 100, 0.03, 1), normal(64, 100, 0.03, 2), 1, 0.97},
		{"10% slower", normal(64, 100, 0.03, 1), normal(64, 90, 0.03, 2), 0.9, 1},
		{"against one value", []float64{100}, normal(64, 90, 0.03, 2), 0.9, 1},
	}
	for _, tt := range tests {
		lo, hi := bs.ratioCI(tt.a, tt.b, 0)
		if !(lo <= tt.wantIncludes && tt.wantIncludes <= hi) || (lo <= tt.wantExcludes && tt.wantExcludes <= hi) {
			t.Errorf("%s: interval [%.4f, %.4f], want it to hold %v and not %v", tt.name, lo, hi, tt.wantIncludes, tt.wantExcludes)
		}
		if lo2, hi2 := bs.ratioCI(tt.a, tt.b, 0); lo2 != lo || hi2 != hi {
			t.Errorf("%s: second interval [%v, %v], want the same [%v, %v]: the seed fixes it", tt.name, lo2, hi2, lo, hi)
		}
	}
}

func TestResamplerMedian(t *testing.T) {
	// A resample that draws every position once is the sample itself.
	for _, values := range [][]float64{{3}, {5, 1}, {4, 1, 3}, {0, 0, 7, 2}} {
		r := newResampler(values)
		want := median(append([]float64(nil), values...))
		for i := range r.counts {
			r.counts[i] = 1
		}
		if got := r.walk(); got != want {
			t.Errorf("median of %v with every position drawn once = %v, want %v", values, got, want)
		}
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median(4 1 3 2) = %v, want 2.5", got)
	}
	if got := quantile([]float64{1, 2, 3, 5}, 0.99); math.Abs(got-4.94) > 1e-12 {
		t.Errorf("quantile(1 2 3 5, 0.99) = %v, want 4.94", got)
	}
}
