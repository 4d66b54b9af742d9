package results

import (
	"math"
	"math/rand/v2"
	"slices"
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

// drawnMedian is the plain bootstrap the resampler stands in for: draw n
// indices with replacement and take the median of their values.
func drawnMedian(rng *rand.Rand, sorted []float64) float64 {
	n := len(sorted)
	draw := make([]float64, n)
	for i := range draw {
		draw[i] = sorted[rng.IntN(n)]
	}
	return median(draw)
}

// TestResamplerMatchesDrawing checks that the resampler's medians follow
// the distribution of medians of resamples drawn index by index: for
// sample sizes odd and even, every value a median can take comes up as
// often by both, within the noise of 40,000 draws each.
func TestResamplerMatchesDrawing(t *testing.T) {
	const draws = 40000
	for _, n := range []int{1, 2, 3, 4, 5, 8, 9, 16} {
		values := make([]float64, n)
		for i := range values {
			values[i] = float64(i * i) // distinct, uneven gaps: every pair of values has its own mean
		}
		r := newResampler(values)
		exact, drawn := map[float64]float64{}, map[float64]float64{}
		rngA, rngB := rand.New(rand.NewPCG(1, uint64(n))), rand.New(rand.NewPCG(2, uint64(n)))
		for range draws {
			exact[r.median(rngA)] += 1.0 / draws
			drawn[drawnMedian(rngB, r.sorted)] += 1.0 / draws
		}
		for v, p := range drawn {
			// 5 standard errors of a frequency p from 40,000 draws, twice.
			if tol := 5 * math.Sqrt(2*p*(1-p)/draws); math.Abs(exact[v]-p) > tol+1e-9 {
				t.Errorf("n=%d: median %v in %.4f of resamples, but %.4f when drawn index by index", n, v, exact[v], p)
			}
		}
		for v := range exact {
			if drawn[v] == 0 && exact[v] > 0.001 {
				t.Errorf("n=%d: median %v in %.4f of resamples, never when drawn", n, v, exact[v])
			}
		}
	}
}

// TestGammaDraw checks the mean and variance of Gamma(a) draws, both a.
func TestGammaDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, a := range []float64{1, 2.5, 40, 4096} {
		var sum, sq float64
		const n = 100000
		for range n {
			x := gammaDraw(rng, a)
			sum += x
			sq += x * x
		}
		mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
		if math.Abs(mean-a) > 5*math.Sqrt(a/n) || math.Abs(variance-a) > 0.05*a {
			t.Errorf("Gamma(%v): mean %.4f, variance %.4f, want %v and %v", a, mean, variance, a, a)
		}
	}
}

func TestQuantile(t *testing.T) {
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median(4 1 3 2) = %v, want 2.5", got)
	}
	if got := quantile([]float64{1, 2, 3, 5}, 0.99); math.Abs(got-4.94) > 1e-12 {
		t.Errorf("quantile(1 2 3 5, 0.99) = %v, want 4.94", got)
	}
	if got := quantile(slices.Clone([]float64{7}), 0.5); got != 7 {
		t.Errorf("quantile(7, 0.5) = %v, want 7", got)
	}
}
