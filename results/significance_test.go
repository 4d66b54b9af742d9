package results

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMannWhitneyExact holds the exact p-value to a count of every way to
// split the pooled values between the two sides.
func TestMannWhitneyExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n, m := 1+rng.IntN(6), 1+rng.IntN(6)
		x, y := make([]float64, n), make([]float64, m)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range y {
			y[i] = rng.NormFloat64() + float64(trial%3)
		}
		if got, want := mannWhitney(x, y), enumerateU(x, y); math.Abs(got-want) > 1e-12 {
			t.Fatalf("mannWhitney(%v, %v) = %v, enumeration gives %v", x, y, got, want)
		}
	}
	if got := mannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}); math.Abs(got-2.0/252) > 1e-15 {
		t.Errorf("complete separation of 5 and 5 = %v, want 2/252", got)
	}
	if got := minMannWhitney(4, 4); math.Abs(got-2.0/70) > 1e-15 {
		t.Errorf("minMannWhitney(4, 4) = %v, want 2/70", got)
	}
}

// enumerateU is the two-sided p-value of U by trying every subset of the
// pooled values as x.
func enumerateU(x, y []float64) float64 {
	all := append(append([]float64{}, x...), y...)
	n, total := len(x), len(all)
	u := func(mask int) float64 {
		var s float64
		for i := range total {
			for j := range total {
				if mask&(1<<i) != 0 && mask&(1<<j) == 0 && all[i] > all[j] {
					s++
				}
			}
		}
		return s
	}
	mid := float64(n*(total-n)) / 2
	obs := math.Abs(u(1<<n-1) - mid)
	var hits, count float64
	for mask := range 1 << total {
		if popcount(mask) != n {
			continue
		}
		count++
		if math.Abs(u(mask)-mid) >= obs-1e-9 {
			hits++
		}
	}
	return hits / count
}

func popcount(v int) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// TestSignedRankExact holds the exact p-value to a count of every sign
// pattern of the differences.
func TestSignedRankExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		d := make([]float64, 1+rng.IntN(10))
		for i := range d {
			d[i] = rng.NormFloat64() + 0.5*float64(trial%3)
		}
		if got, want := signedRank(d), enumerateSigns(d); math.Abs(got-want) > 1e-12 {
			t.Fatalf("signedRank(%v) = %v, enumeration gives %v", d, got, want)
		}
	}
	if got := minSignedRank(6); got != 2.0/64 {
		t.Errorf("minSignedRank(6) = %v, want 2/64", got)
	}
}

func enumerateSigns(d []float64) float64 {
	n := len(d)
	abs := make([]float64, n)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	ranks, _ := rankAll(abs)
	w := func(mask int) float64 {
		var s float64
		for i := range n {
			if mask&(1<<i) != 0 {
				s += ranks[i]
			}
		}
		return s
	}
	var obsMask int
	for i, v := range d {
		if v > 0 {
			obsMask |= 1 << i
		}
	}
	mid := float64(n*(n+1)) / 4
	obs := math.Abs(w(obsMask) - mid)
	var hits float64
	for mask := range 1 << n {
		if math.Abs(w(mask)-mid) >= obs-1e-9 {
			hits++
		}
	}
	return hits / math.Pow(2, float64(n))
}

// TestNormalApproximation: beyond the exact range, and with ties, the
// normal approximation stays near the exact p-value.
func TestNormalApproximation(t *testing.T) {
	x := make([]float64, 31)
	y := make([]float64, 31)
	for i := range x {
		x[i] = float64(2 * i)
		y[i] = float64(2*i) + 9
	}
	exact := mannWhitney(x[:30], y[:30]) // 60 values: exact
	approx := mannWhitney(x, y)          // 62: normal
	if exact < 0.01 || math.Abs(approx-exact)/exact > 0.35 {
		t.Errorf("p exact (30+30) = %v, normal (31+31) = %v: want both near", exact, approx)
	}
	if p := mannWhitney([]float64{1, 1, 1}, []float64{1, 1, 1}); p != 1 {
		t.Errorf("all ties: p = %v, want 1", p)
	}
}

func TestBenjaminiHochberg(t *testing.T) {
	got := benjaminiHochberg([]float64{0.01, math.NaN(), 0.04, 0.03, 0.5})
	want := []float64{0.04, math.NaN(), 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5} // 0.03·4/2 = 0.06 takes the smaller one above
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("benjaminiHochberg = %v, want %v", got, want)
		}
	}
}

// TestVerdict_NoRatio: where both sides' medians are 0, B/A is NaN; a
// significant test then read as "better" (NaN is neither 0 nor above the
// threshold). The medians do not differ: "same". In JSON, a ratio with
// no finite value is null, where encoding/json failed the whole output.
func TestVerdict_NoRatio(t *testing.T) {
	c := Compare{}.defaults()
	for _, lower := range []bool{false, true} {
		if v := c.verdict(math.NaN(), lower, true); v != VerdictSame {
			t.Errorf("verdict(NaN, lower %v, significant) = %s, want %s", lower, v, VerdictSame)
		}
	}
	if v := c.verdict(math.Inf(1), true, true); v != VerdictRegression {
		t.Errorf("verdict(+Inf, a time, significant) = %s, want %s", v, VerdictRegression)
	}
	b, err := json.Marshal([]Float{Float(math.NaN()), Float(math.Inf(1)), Float(math.Inf(-1)), 1.5})
	if err != nil || string(b) != "[null,null,null,1.5]" {
		t.Errorf("json.Marshal of NaN, +Inf, -Inf, 1.5 = %s, %v; want [null,null,null,1.5]", b, err)
	}
}
