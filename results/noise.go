package results

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// NoiseModel is how a metric moves when nothing changed, in log space. A
// run's sample at one size is its point's true value times
// e^(shared + own + rank): shared ~ N(0, Shared²) is the run's offset at
// every size (what else the machine did while it ran), own ~ N(0, Size²)
// its offset at that size alone, and rank ~ N(0, Rank²) each rank's own.
type NoiseModel struct {
	Shared float64 `json:"shared"` // standard deviations, of the natural log
	Size   float64 `json:"size"`
	Rank   float64 `json:"rank"`

	// What the model was fitted to: runs per group (the fewest), groups
	// (points times sizes), and the ranks of a run's group (the median).
	Runs, Groups, Ranks int `json:"-"`
}

// Run is the standard deviation of a run's offset at one size:
// sqrt(Shared² + Size²).
func (m NoiseModel) Run() float64 { return math.Hypot(m.Shared, m.Size) }

func (m NoiseModel) String() string {
	return fmt.Sprintf("run-to-run %.1f%% (%.1f%% shared by a run's sizes), rank-to-rank %.1f%%",
		100*m.Run(), 100*m.Shared, 100*m.Rank)
}

// FitNoise fits a model to the runs f selects, grouped as compare groups
// them (benchmark, the by parameters, size): each group must hold the
// same point measured again and again, at least three runs. Rank holds
// the spread of a run's samples around their mean; the runs' offsets are
// what is left of the spread of their means once the ranks' share is
// taken out, split between what a run's sizes share and what they do not
// by how much the sizes of one run move together.
func (db *DB) FitNoise(ctx context.Context, f RunFilter, m Metric, by []string) (NoiseModel, error) {
	sides, err := db.loadSide(ctx, f, m, by)
	if err != nil {
		return NoiseModel{}, fmt.Errorf("fit noise: %w", err)
	}
	var nm NoiseModel
	var rankSS, rankDF float64 // rank deviations from their run's mean
	var runSS, runDF float64   // runs' means from their group's mean
	var ranks []int
	// offsets[point][run] are a run's deviations at each size of a point.
	offsets := map[string]map[int64][]float64{}
	for k, s := range sides {
		if len(s.runs) < 3 {
			continue
		}
		nm.Groups++
		nm.Runs = minPositive(nm.Runs, len(s.runs))
		means := map[int64]float64{}
		var grand float64
		for id, values := range s.runs {
			logs := logsOf(values)
			mean := meanOf(logs)
			for _, l := range logs {
				rankSS += (l - mean) * (l - mean)
			}
			rankDF += float64(len(logs) - 1)
			ranks = append(ranks, len(values))
			means[id] = mean
			grand += mean
		}
		grand /= float64(len(means))
		point := k.benchmark + "\x00" + k.params
		if offsets[point] == nil {
			offsets[point] = map[int64][]float64{}
		}
		for id, mean := range means {
			runSS += (mean - grand) * (mean - grand)
			offsets[point][id] = append(offsets[point][id], mean-grand)
		}
		runDF += float64(len(means) - 1)
	}
	if nm.Groups == 0 {
		return nm, errors.New("fit noise: no group of the selection holds three runs or more")
	}
	slices.Sort(ranks)
	nm.Ranks = ranks[len(ranks)/2]
	if rankDF > 0 {
		nm.Rank = math.Sqrt(rankSS / rankDF)
	}
	// A run's mean carries its ranks' noise over the number of ranks.
	runVar := math.Max(0, runSS/runDF-nm.Rank*nm.Rank/float64(nm.Ranks))
	// Var(a run's mean offset over its G sizes) = Shared² + Size²/G.
	var sharedSS, sharedDF, sizes float64
	for _, runs := range offsets {
		var all []float64
		for _, d := range runs {
			all = append(all, meanOf(d))
			sizes += float64(len(d))
		}
		mean := meanOf(all)
		for _, v := range all {
			sharedSS += (v - mean) * (v - mean)
		}
		sharedDF += float64(len(all) - 1)
	}
	g := sizes / float64(countRuns(offsets)) // sizes per run
	if sharedDF > 0 && g > 1 {
		v := math.Max(0, sharedSS/sharedDF-nm.Rank*nm.Rank/float64(nm.Ranks)/g)
		own := math.Min(runVar, math.Max(0, (runVar-v)*g/(g-1)))
		nm.Size, nm.Shared = math.Sqrt(own), math.Sqrt(runVar-own)
	} else {
		nm.Size = math.Sqrt(runVar)
	}
	return nm, nil
}

// Simulation says what to draw from a NoiseModel: comparisons of Runs runs
// a side, each run of Ranks ranks at Sizes sizes, B slower than A by
// Slowdown (0.10: 10% less of a rate), judged as Compare judges.
type Simulation struct {
	Compare  Compare
	Runs     int
	Ranks    int
	Sizes    int
	Slowdown float64
	Trials   int
	Seed     uint64
}

// Regressions returns the share of the simulated comparisons in which
// Compare found at least one regression: with Slowdown 0, its false
// alarms; with a slowdown beyond the threshold, how often it is caught.
func (m NoiseModel) Regressions(s Simulation) float64 {
	rng := rand.New(rand.NewPCG(s.Seed, 0x4e015e))
	c := s.Compare.defaults()
	c.Metric = Metric{Name: "gbps"}
	c.noInterval = true // the interval plays no part in a verdict
	hits := 0
	for range s.Trials {
		a, b := m.draw(rng, s, 1), m.draw(rng, s, 1-s.Slowdown)
		rows, _, _, _ := c.judge(a, b, nil)
		if slices.ContainsFunc(rows, func(r CompareRow) bool { return r.Verdict == VerdictRegression }) {
			hits++
		}
	}
	return float64(hits) / float64(s.Trials)
}

// draw draws one side of a simulated comparison: one point at s.Sizes
// sizes, true value 1 times factor.
func (m NoiseModel) draw(rng *rand.Rand, s Simulation, factor float64) map[groupKey]*side {
	out := map[groupKey]*side{}
	for size := range s.Sizes {
		out[groupKey{benchmark: "sim", size: uint64(size)}] = &side{runs: map[int64][]float64{}}
	}
	for run := range int64(s.Runs) {
		shared := m.Shared * rng.NormFloat64()
		for size := range s.Sizes {
			own := m.Size * rng.NormFloat64()
			values := make([]float64, s.Ranks)
			for r := range values {
				values[r] = factor * math.Exp(shared+own+m.Rank*rng.NormFloat64())
			}
			out[groupKey{benchmark: "sim", size: uint64(size)}].runs[run] = values
		}
	}
	return out
}

func logsOf(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

func meanOf(v []float64) float64 { return sum(v) / float64(len(v)) }

func countRuns(offsets map[string]map[int64][]float64) int {
	n := 0
	for _, runs := range offsets {
		n += len(runs)
	}
	return n
}

// minPositive returns the smaller of a and b, a counting as unset when 0.
func minPositive(a, b int) int {
	if a == 0 {
		return b
	}
	return min(a, b)
}
