package results

import (
	"cmp"
	"math"
	"slices"
)

// The rank tests of compare. A rank test asks only whether one side's
// values tend to lie above the other's, so one wild run moves it no more
// than any other run above the rest: what a benchmark's heavy tails need.
// Exact distributions are used while they are cheap and the values have
// no ties; the normal approximation, corrected for ties, otherwise.

// exactLimit is the largest total sample count for which the exact
// distributions are computed.
const exactLimit = 60

// mannWhitney returns the two-sided p-value of the Mann-Whitney U test
// (the Wilcoxon rank-sum test) that x and y come from one distribution.
func mannWhitney(x, y []float64) float64 {
	n, m := len(x), len(y)
	if n == 0 || m == 0 {
		return 1
	}
	ranks, ties := rankAll(slices.Concat(x, y))
	var rx float64
	for _, r := range ranks[:n] {
		rx += r
	}
	u := rx - float64(n*(n+1))/2 // pairs in which x is the larger, ties counting half
	if ties == 0 && n+m <= exactLimit {
		counts := uCounts(n, m)
		k := int(math.Round(math.Min(u, float64(n*m)-u)))
		var tail float64
		for _, c := range counts[:k+1] {
			tail += c
		}
		return math.Min(1, 2*tail/sum(counts))
	}
	mean := float64(n*m) / 2
	nm := float64(n + m)
	variance := float64(n*m) / 12 * (nm + 1 - ties/(nm*(nm-1)))
	return normalTwoSided(u, mean, variance)
}

// minMannWhitney is the smallest p-value the test can give with n and m
// values: every x above every y.
func minMannWhitney(n, m int) float64 {
	if n == 0 || m == 0 {
		return 1
	}
	// One arrangement of C(n+m, n) at each extreme.
	return math.Min(1, 2/binomial(n+m, n))
}

// signedRank returns the two-sided p-value of the Wilcoxon signed-rank
// test that the differences d are centred on 0. Zero differences are
// dropped, as Wilcoxon did.
func signedRank(d []float64) float64 {
	d = slices.DeleteFunc(slices.Clone(d), func(v float64) bool { return v == 0 })
	n := len(d)
	if n == 0 {
		return 1
	}
	abs := make([]float64, n)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	ranks, ties := rankAll(abs)
	var w float64 // the sum of the ranks of the positive differences
	for i, v := range d {
		if v > 0 {
			w += ranks[i]
		}
	}
	total := float64(n*(n+1)) / 2
	if ties == 0 && n <= exactLimit {
		counts := signedRankCounts(n)
		k := int(math.Round(math.Min(w, total-w)))
		var tail float64
		for _, c := range counts[:k+1] {
			tail += c
		}
		return math.Min(1, 2*tail/math.Pow(2, float64(n)))
	}
	variance := float64(n*(n+1)*(2*n+1))/24 - ties/48
	return normalTwoSided(w, total/2, variance)
}

// minSignedRank is the smallest p-value the signed-rank test can give
// with n differences: all of one sign.
func minSignedRank(n int) float64 { return math.Min(1, 2/math.Pow(2, float64(n))) }

// rankAll returns the ranks of values (1 for the smallest, ties sharing
// their mean rank) and the tie correction Σ(t³-t) over the groups of t
// equal values.
func rankAll(values []float64) (ranks []float64, ties float64) {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(values[a], values[b]) })
	ranks = make([]float64, len(values))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && values[idx[j+1]] == values[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = mean
		}
		if t := float64(j - i + 1); t > 1 {
			ties += t*t*t - t
		}
		i = j + 1
	}
	return ranks, ties
}

// uCounts returns, for each u from 0 to n·m, in how many of the C(n+m, n)
// orderings of n x values and m y values u pairs have the x above the y:
// the coefficients of the Gaussian binomial [n+m, n], built one factor
// (1-q^(m+i))/(1-q^i) at a time. Each step leaves the coefficients of
// [m+i, i], so they stay positive counts.
func uCounts(n, m int) []float64 {
	c := make([]float64, n*m+1)
	c[0] = 1
	for i := 1; i <= n; i++ {
		for k := len(c) - 1; k >= m+i; k-- { // times (1 - q^(m+i))
			c[k] -= c[k-m-i]
		}
		for k := i; k < len(c); k++ { // over (1 - q^i)
			c[k] += c[k-i]
		}
	}
	return c
}

// signedRankCounts returns, for each w from 0 to n(n+1)/2, how many of
// the 2^n sign patterns of ranks 1..n give the positive ranks a sum of w.
func signedRankCounts(n int) []float64 {
	c := make([]float64, n*(n+1)/2+1)
	c[0] = 1
	for r := 1; r <= n; r++ {
		for k := len(c) - 1; k >= r; k-- {
			c[k] += c[k-r]
		}
	}
	return c
}

// normalTwoSided is the two-sided p-value of statistic s under a normal
// law of the mean and variance given, with a continuity correction.
func normalTwoSided(s, mean, variance float64) float64 {
	if variance <= 0 {
		return 1
	}
	z := (math.Abs(s-mean) - 0.5) / math.Sqrt(variance)
	if z <= 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// benjaminiHochberg returns the p-values adjusted for testing them all at
// once: rejecting those whose adjusted value is below α keeps the expected
// share of false discoveries among them at most α, and when nothing
// differs at all (the A/A case), the chance of any false one at most α.
// NaN marks an untested row and stays NaN.
func benjaminiHochberg(p []float64) []float64 {
	var idx []int
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	adj := slices.Clone(p)
	m := float64(len(idx))
	low := 1.0
	for k := len(idx) - 1; k >= 0; k-- {
		low = math.Min(low, p[idx[k]]*m/float64(k+1))
		adj[idx[k]] = low
	}
	return adj
}

// binomial returns C(n, k) as a float.
func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}
