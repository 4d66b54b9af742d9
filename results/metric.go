package results

import (
	"errors"
	"fmt"
	"strings"
)

// The derived numbers of the store are defined here, once, as SQL that the
// queries splice in; docs/metrics.md documents them for users. Queries never
// spell a formula themselves.
//
// The expressions read a samples row as s and its runs row as r.

// sampleGbpsSQL is the bandwidth of one sample in Gbps (1e9 bit/s): every
// payload byte the rank moved through its endpoint, in both directions,
// over the timed iterations. For the sendrecv ping-pong that is 2·size per
// round trip, the fabtests convention; Libefaxx counts one buffer per round
// trip, half of it. The 8.0 comes first so that the product is computed in
// floating point and cannot overflow 64-bit integers.
const sampleGbpsSQL = `8.0 * (s.bytes_sent + s.bytes_recv) * s.iterations / s.elapsed_ns`

// roundTripSQL is true for a run whose benchmark times one round trip per
// iteration (a ping-pong), so that its one-way latency is half.
const roundTripSQL = `r.benchmark IN ('sendrecv')`

// sampleLatencyNsSQL is the latency of one sample in ns: the median
// iteration time, halved for round-trip benchmarks to give the one-way
// latency that OSU and fabtests report.
const sampleLatencyNsSQL = `CASE WHEN ` + roundTripSQL + ` THEN s.lat_p50_ns / 2.0 ELSE s.lat_p50_ns * 1.0 END`

// ErrUnknownMetric is returned, wrapped with the name, for a metric name
// that is not defined here.
var ErrUnknownMetric = errors.New("unknown metric")

// Metric is a number derived from each sample row. Queries aggregate it
// over ranks and runs; compare and check judge it.
type Metric struct {
	Name  string `json:"name"`  // what users type: "gbps"
	Unit  string `json:"unit"`  // for headers: "Gbps"
	Doc   string `json:"doc"`   // one line, for help and docs/metrics.md
	Lower bool   `json:"lower"` // lower is better (a time); false: higher is better (a rate)

	sql string // the value of a samples row s of a runs row r
}

// metrics are every metric, in the order help lists them.
var metrics = []Metric{
	{Name: "gbps", Unit: "Gbps", sql: sampleGbpsSQL,
		Doc: "payload bytes the rank sent and received, per second of timed loop, in 1e9 bit/s"},
	{Name: "lat_us", Unit: "us", Lower: true, sql: `(` + sampleLatencyNsSQL + `) / 1e3`,
		Doc: "median iteration time in microseconds, halved for ping-pong benchmarks (one-way)"},
	{Name: "lat_p99_us", Unit: "us", Lower: true,
		sql: `CASE WHEN ` + roundTripSQL + ` THEN s.lat_p99_ns / 2e3 ELSE s.lat_p99_ns / 1e3 END`,
		Doc: "99th percentile iteration time in microseconds, halved for ping-pong benchmarks"},
	{Name: "iter_us", Unit: "us", Lower: true, sql: `s.elapsed_ns / 1e3 / s.iterations`,
		Doc: "mean iteration time in microseconds, elapsed over iterations, a round trip for ping-pong (Libefaxx's Lat(us))"},
	{Name: "libefaxx_gbps", Unit: "Gbps", sql: `8.0 * s.size * s.iterations / s.elapsed_ns`,
		Doc: "one message of size bytes per iteration, in 1e9 bit/s: Libefaxx's bandwidth, half of gbps for sendrecv"},
}

// Metrics returns every metric the store defines.
func Metrics() []Metric { return append([]Metric(nil), metrics...) }

// LookupMetric returns the metric called name, or an error wrapping
// ErrUnknownMetric that lists the known ones.
func LookupMetric(name string) (Metric, error) {
	names := make([]string, len(metrics))
	for i, m := range metrics {
		if m.Name == name {
			return m, nil
		}
		names[i] = m.Name
	}
	return Metric{}, fmt.Errorf("metric %q: %w; known: %s", name, ErrUnknownMetric, strings.Join(names, ", "))
}

// Better reports whether value a is better than b for m.
func (m Metric) Better(a, b float64) bool {
	if m.Lower {
		return a < b
	}
	return a > b
}
