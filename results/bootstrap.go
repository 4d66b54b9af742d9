package results

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap is the test compare applies when both sides have several
// samples: a percentile bootstrap confidence interval of the ratio of
// medians. Each resample draws n values with replacement from each side's
// n samples (per rank, per run), takes both medians and their ratio; the
// interval is the (1-Level)/2 and (1+Level)/2 percentiles of the ratios.
// The seed makes the interval the same at every run.
type Bootstrap struct {
	Resamples int     // resamples per interval; 1000 when 0
	Level     float64 // confidence level; 0.95 when 0
	Seed      uint64  // PCG seed; every group gets its own stream of it
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

// resampler draws the median of a resample of its values without sorting
// the resample: the values are sorted once, and a resample is a count of
// draws per position, walked up to the middle.
type resampler struct {
	sorted []float64
	counts []int32
}

// newResampler sorts a copy of values.
func newResampler(values []float64) *resampler {
	s := slices.Clone(values)
	slices.Sort(s)
	return &resampler{sorted: s, counts: make([]int32, len(s))}
}

// median returns the median of one resample.
func (r *resampler) median(rng *rand.Rand) float64 {
	n := len(r.sorted)
	if n == 1 {
		return r.sorted[0]
	}
	clear(r.counts)
	for range n {
		r.counts[rng.IntN(n)]++
	}
	return r.walk()
}

// walk returns the median of the resample that counts describes.
func (r *resampler) walk() float64 {
	n := len(r.sorted)
	// The median is the value at position (n-1)/2 of the resample sorted,
	// averaged with the one at n/2: the same value when n is odd.
	lo, hi := (n-1)/2, n/2
	var vlo float64
	found := false
	seen := 0
	for i, c := range r.counts {
		seen += int(c)
		if !found && seen > lo {
			vlo, found = r.sorted[i], true
		}
		if seen > hi {
			return (vlo + r.sorted[i]) / 2
		}
	}
	return r.sorted[n-1] // not reached: the counts sum to n
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
