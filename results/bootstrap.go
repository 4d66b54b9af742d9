package results

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap is the interval compare draws of the ratio of medians: a
// percentile bootstrap. Each resample draws n values with replacement from
// each side's n values (its runs' values, or one run's samples), takes both
// medians and their ratio; the interval is the (1-Level)/2 and (1+Level)/2
// percentiles of the ratios. The seed makes the interval the same at every
// run. The verdict is the rank test's, not the interval's.
type Bootstrap struct {
	Resamples int     `json:"resamples"` // resamples per interval; 1000 when 0
	Level     float64 `json:"level"`     // confidence level; 0.95 when 0
	Seed      uint64  `json:"seed"`      // PCG seed; every group gets its own stream of it
}

// defaults fills the zero fields of b.
func (b Bootstrap) defaults() Bootstrap {
	if b.Resamples == 0 {
		b.Resamples = 1000
	}
	if b.Level == 0 {
		b.Level = 0.95
	}
	return b
}

// ratioCI returns the interval of median(b)/median(a) from the samples a
// and b, drawing with the stream stream of the seed. A side of one value
// enters every resample as that value, which is how a baseline (a
// published number) is compared with samples.
func (bs Bootstrap) ratioCI(a, b []float64, stream uint64) (lo, hi float64) {
	bs = bs.defaults()
	rng := rand.New(rand.NewPCG(bs.Seed, stream))
	ra, rb := newResampler(a), newResampler(b)
	ratios := make([]float64, bs.Resamples)
	for i := range ratios {
		ratios[i] = rb.median(rng) / ra.median(rng)
	}
	slices.Sort(ratios)
	return quantile(ratios, (1-bs.Level)/2), quantile(ratios, (1+bs.Level)/2)
}

// resampler draws the median of a resample of its values without drawing
// the resample. The values are sorted once. A resample of n values drawn
// with replacement takes n uniform indices; the k-th smallest of them is
// floor(n·U(k)), where U(k), the k-th smallest of n uniform numbers in
// [0, 1), follows the Beta(k, n+1-k) distribution, and the next one lies
// above it by (1-U(k))·Beta(1, n-k). So a resample median costs a few
// Gamma draws however many ranks there are, and follows exactly the
// distribution of drawing the n indices (the tests check it against that).
type resampler struct {
	sorted []float64
}

// newResampler sorts a copy of values.
func newResampler(values []float64) *resampler {
	s := slices.Clone(values)
	slices.Sort(s)
	return &resampler{sorted: s}
}

// median returns the median of one resample: the value at position
// (n-1)/2 of the resample sorted, averaged with the one at n/2.
func (r *resampler) median(rng *rand.Rand) float64 {
	n := len(r.sorted)
	if n == 1 {
		return r.sorted[0]
	}
	k := (n + 1) / 2 // 1-based rank of the lower middle
	u := betaDraw(rng, float64(k), float64(n+1-k))
	lo := r.at(u)
	if n%2 == 1 {
		return lo
	}
	next := u + (1-u)*(1-math.Pow(rng.Float64(), 1/float64(n-k)))
	return (lo + r.at(next)) / 2
}

// at returns the value at the index floor(n·u) draws, u in [0, 1].
func (r *resampler) at(u float64) float64 {
	i := int(u * float64(len(r.sorted)))
	return r.sorted[min(max(i, 0), len(r.sorted)-1)]
}

// betaDraw draws from Beta(a, b), a and b at least 1.
func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x, y := gammaDraw(rng, a), gammaDraw(rng, b)
	return x / (x + y)
}

// gammaDraw draws from Gamma(a, 1), a at least 1, by Marsaglia and
// Tsang's method ("A simple method for generating gamma variables", 2000).
func gammaDraw(rng *rand.Rand, a float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// quantile returns the q quantile of sorted values, linear between them,
// as SQLite's percentile() and median() compute it.
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// median returns the median of values, which it sorts.
func median(values []float64) float64 {
	slices.Sort(values)
	return quantile(values, 0.5)
}
