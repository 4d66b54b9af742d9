package plots

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// axisMap maps a panel's data onto a linear gonum axis: log axes are drawn
// as the logarithms of the values on a linear axis, with ticks labelled in
// the values. gonum's LogScale places an axis label's glyph box at the
// arithmetic middle of the range, which on a log axis is near its end, and
// shrinks the panel to make room for a box that is not there.
type axisMap struct {
	f     func(float64) float64 // value → position on the axis
	ticks plot.Ticker
}

// axisOf returns the map of a scale on a panel of a row of columns.
func axisOf(scale string, columns int) axisMap {
	switch scale {
	case ScaleLog2:
		return axisMap{f: math.Log2, ticks: log2Ticks{labels: 12 - 2*columns}}
	case ScaleLog10:
		return axisMap{f: math.Log10, ticks: log10Ticks{}}
	}
	return axisMap{f: func(v float64) float64 { return v }, ticks: linearTicks{}}
}

// linearTicks labels about five steps of 1, 2 or 5 times a power of ten,
// each with the decimals its step needs: 0, 2.5, 5 rather than 0.00, 2.50.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 4, 64)}}
	}
	step := niceStep((max - min) / 5)
	decimals := -math.Floor(math.Log10(step))
	if m := step / math.Pow(10, -decimals); math.Abs(m-2.5) < 1e-9 {
		decimals++ // 2.5, 7.5
	}
	decimals = math.Max(0, decimals)
	var ticks []plot.Tick
	for i := math.Ceil(min / step); i*step <= max+step*1e-9; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', int(decimals), 64)})
		if half := v + step/2; half <= max {
			ticks = append(ticks, plot.Tick{Value: half})
		}
	}
	return ticks
}

// valueTicks labels exactly the values vs, mapped by m: the values a
// parameter on x takes.
func valueTicks(vs []float64, m axisMap) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(vs))
	for i, v := range vs {
		ticks[i] = plot.Tick{Value: m.f(v), Label: strconv.FormatFloat(v, 'g', -1, 64)}
	}
	return ticks
}

// niceStep returns the least of 1, 2, 2.5 and 5 times a power of ten that
// is at least raw.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// log2Ticks marks every power of two of a log2 axis and labels every
// second one (4K, 16K, 64K), or every fourth (4K, 64K, 1M) where that
// would make more than labels labels.
type log2Ticks struct{ labels int }

// Ticks implements plot.Ticker on the exponents.
func (t log2Ticks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Ceil(min)), int(math.Floor(max))
	if lo < 0 {
		lo = 0
	}
	every := 2
	if (hi-lo)/2+1 > t.labels {
		every = 4
	}
	var ticks []plot.Tick
	for e := lo; e <= hi && e < 64; e++ {
		tick := plot.Tick{Value: float64(e)}
		if e%every == 0 || hi-lo < 4 {
			tick.Label = SizeLabel(uint64(1) << e)
		}
		ticks = append(ticks, tick)
	}
	return ticks
}

// log10Ticks labels each power of ten of a log10 axis, with ticks at 2..9
// times it, labelled at 2 and 5 times it when the axis spans less than two
// decades. An axis too narrow for two such labels (370 to 398) is
// labelled in linear steps instead: one label, or none, would leave its
// values unreadable.
type log10Ticks struct{}

// Ticks implements plot.Ticker on the exponents.
func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	narrow := max-min < 2
	var ticks []plot.Tick
	labels := 0
	for e := math.Floor(min); e <= math.Ceil(max); e++ {
		for m := 1.0; m < 10; m++ {
			v := e + math.Log10(m)
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || narrow && (m == 2 || m == 5) {
				t.Label = number10(m, e)
				labels++
			}
			ticks = append(ticks, t)
		}
	}
	if labels >= 2 || !(max > min) {
		return ticks
	}
	lin := linearTicks{}.Ticks(math.Pow(10, min), math.Pow(10, max))
	ticks = ticks[:0]
	for _, t := range lin {
		if t.Value > 0 {
			ticks = append(ticks, plot.Tick{Value: math.Log10(t.Value), Label: t.Label})
		}
	}
	return ticks
}

// number10 writes m·10^e: 0.02, 5, 1000, or 2e+06 from a million.
func number10(m, e float64) string {
	if e >= 6 || e <= -4 {
		return fmt.Sprintf("%ge%+03d", m, int(e))
	}
	return strconv.FormatFloat(m*math.Pow(10, e), 'f', -1, 64)
}

// mapSeries returns s with its points mapped onto the axes.
func mapSeries(s SeriesData, tx, ty axisMap) SeriesData {
	pts := make([]Point, len(s.Points))
	for i, p := range s.Points {
		pts[i] = Point{X: tx.f(p.X), Y: ty.f(p.Y)}
		if p.Lo != nil && p.Hi != nil {
			lo, hi := ty.f(*p.Lo), ty.f(*p.Hi)
			pts[i].Lo, pts[i].Hi = &lo, &hi
		}
	}
	s.Points = pts
	return s
}

// mapBoxes returns bs mapped onto the axes.
func mapBoxes(bs []Box, tx, ty axisMap) []Box {
	out := make([]Box, len(bs))
	for i, b := range bs {
		out[i] = Box{X: tx.f(b.X), Samples: b.Samples, Min: ty.f(b.Min), P25: ty.f(b.P25), Median: ty.f(b.Median),
			P75: ty.f(b.P75), Max: ty.f(b.Max)}
	}
	return out
}

// mapNotes returns notes mapped onto the axes.
func mapNotes(notes []Note, tx, ty axisMap) []Note {
	out := make([]Note, len(notes))
	for i, n := range notes {
		out[i] = Note{X: tx.f(n.X), Y: ty.f(n.Y), Text: n.Text}
	}
	return out
}

// mapRules returns rules mapped onto the y axis.
func mapRules(rules []Rule, ty axisMap) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = Rule{Y: ty.f(r.Y), Label: r.Label}
	}
	return out
}
