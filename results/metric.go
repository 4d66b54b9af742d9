package results

import (
	"context"
	"efaxx/benchmarks"
	"errors"
	"fmt"
	"regexp"
	"slices"
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
//
// Of the external tools' runs, fabtests' ping-pongs time a round trip per
// iteration too: halving gives the one-way usec/xfer they print. (OSU's
// latency samples hold one way already.)
var roundTripSQL = `(r.benchmark IN (` + sqlList(benchmarks.RoundTrips()) + `) OR r.benchmark GLOB 'fabtests:*pingpong')`

// sqlList quotes names as an SQL list: names come from the benchmark
// table, never from a user.
func sqlList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + strings.ReplaceAll(n, "'", "''") + "'"
	}
	return strings.Join(q, ", ")
}

// sampleLatencyNsSQL is the latency of one sample in ns: the median
// iteration time, halved for round-trip benchmarks to give the one-way
// latency that OSU and fabtests report.
var sampleLatencyNsSQL = `CASE WHEN ` + roundTripSQL + ` THEN s.lat_p50_ns / 2.0 ELSE s.lat_p50_ns * 1.0 END`

// ErrUnknownMetric is returned, wrapped with the name, for a metric name
// that is not defined here.
var ErrUnknownMetric = errors.New("unknown metric")

// Metric is a number derived from each sample row. Queries aggregate it
// over ranks and runs; compare and check judge it. A metric may be NULL
// for some samples (pct_link without a known link, algbw outside all2all):
// those samples are left out of its aggregates.
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
	{Name: "libefaxx_gbps", Unit: "Gbps", sql: libefaxxGbpsSQL,
		Doc: "the bandwidth as Libefaxx counts it: one buffer per round trip for sendrecv (half of gbps), the buffers written per iteration for write, one peer's buffer for all2all"},
	{Name: "dir_gbps", Unit: "Gbps", sql: directionGbpsSQL,
		Doc: "the busier direction of a sample, in 1e9 bit/s: what one way of a full-duplex link carried"},
	{Name: "dir_gbs", Unit: "GB/s", sql: directionGBsSQL,
		Doc: "dir_gbps in GB/s (1e9 bytes/s), as GPU paths are quoted: the bytes one direction carried (ipc: copied; proxy and write: written)"},
	{Name: "mops", Unit: "Mops", sql: mopsSQL,
		Doc: "timed iterations per second in millions (queue: commands, all producers together)"},
	{Name: "pct_link", Unit: "%", sql: percentLinkSQL,
		Doc: "dir_gbps as a percent of the capacity of the NICs behind the sample's rails; none where that is unknown"},
	{Name: "algbw", Unit: "GB/s", sql: algbwSQL,
		Doc: "nccl-tests' algbw in 1e9 bytes/s: as the tool printed it for nccl-tests and NVSHMEM runs; for all2all the whole per-rank buffer (ranks x size) per iteration time"},
	{Name: "busbw", Unit: "GB/s", sql: busbwSQL,
		Doc: "nccl-tests' busbw in 1e9 bytes/s: as the tool printed it for nccl-tests and NVSHMEM runs; for all2all algbw x (ranks-1)/ranks, the bytes that crossed the network"},
}

// ToolMetricPrefix starts the name of a metric that is a tool value as
// the tool printed it: "tool:speedup", "tool:latency".
const ToolMetricPrefix = "tool:"

// toolValueHead and toolValueTail, around a name, are the tool value of
// that name of sample s, or NULL.
const (
	toolValueHead = `(SELECT v.value FROM tool_values v WHERE v.run_id = s.run_id AND v.size = s.size AND v.rank = s.rank
		AND v.peer = s.peer AND v.variant = s.variant AND v.name = '`
	toolValueTail = `')`
)

// toolValueSQL is the tool value called name of sample s, or NULL; name
// is checked by toolName, so it cannot close the quote.
func toolValueSQL(name string) string { return toolValueHead + name + toolValueTail }

// toolName is the form of a tool value's name in a metric.
var toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// toolMetric returns the metric of tool value name: lower is better for
// a time, higher for the rest.
func toolMetric(name string) (Metric, bool) {
	v := strings.TrimPrefix(name, ToolMetricPrefix)
	if !toolName.MatchString(v) {
		return Metric{}, false
	}
	lower := strings.Contains(v, "latency") || strings.Contains(v, "time") || strings.HasPrefix(v, "usec")
	return Metric{Name: name, Unit: v, Lower: lower, sql: toolValueSQL(v),
		Doc: "the tool value " + v + " as the tool printed it, in its unit (tool_values.unit)"}, true
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
	if strings.HasPrefix(name, ToolMetricPrefix) {
		if m, ok := toolMetric(name); ok {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("metric %q: %w; known: %s, and tool:NAME for a value a tool printed", name,
		ErrUnknownMetric, strings.Join(names, ", "))
}

// Better reports whether value a is better than b for m.
func (m Metric) Better(a, b float64) bool {
	if m.Lower {
		return a < b
	}
	return a > b
}

// directionGbpsSQL is the busier direction of one sample in Gbps: what one
// way of a full-duplex link carried. Percent of link divides it by the link.
const directionGbpsSQL = `8.0 * MAX(s.bytes_sent, s.bytes_recv) * s.iterations / s.elapsed_ns`

// directionGBsSQL is directionGbpsSQL in GB/s (1e9 bytes/s), the unit of
// GPU paths: NVLink copies, GPU-initiated writes, host memory.
const directionGBsSQL = `1.0 * MAX(s.bytes_sent, s.bytes_recv) * s.iterations / s.elapsed_ns`

// mopsSQL is the rate of timed iterations in millions per second: for the
// queue, where an iteration is one command, commands per second over all
// producers.
const mopsSQL = `1e3 * s.iterations / s.elapsed_ns`

// percentLinkSQL is directionGbpsSQL as a percent of the capacity of the
// NICs behind the sample's rails (s.link_bps, each NIC counted once), or
// NULL when that capacity is unknown.
const percentLinkSQL = `CASE WHEN s.link_bps > 0 THEN 100.0 * ` + directionGbpsSQL + ` * 1e9 / s.link_bps END`

// libefaxxGbpsSQL is the bandwidth as Libefaxx prints it (docs/metrics.md):
// sendrecv counts one buffer per round trip, all2all one peer's buffer per
// iteration, write the buffers written per iteration (all targets together
// under round-robin).
const libefaxxGbpsSQL = `8.0 * CASE r.benchmark WHEN 'write' THEN MAX(s.bytes_sent, s.bytes_recv) ELSE s.size END
	* s.iterations / s.elapsed_ns`

// algbwSQL and busbwSQL are the nccl-tests all-to-all bandwidths of a
// sample in GB/s (1e9 bytes/s): algbw counts the whole per-rank buffer,
// ranks · size, the self block included, per iteration time; busbw is
// algbw · (ranks-1)/ranks, the bytes that crossed the network. NULL for
// other benchmarks.
//
// For the runs of external tools and imports, they are the values the
// tool printed (tool_values algbw and busbw), whatever the collective.
const (
	algbwSQL = `COALESCE(` + toolValueHead + `algbw` + toolValueTail +
		`, CASE WHEN r.benchmark = 'all2all' THEN 1.0 * r.ranks * s.size * s.iterations / s.elapsed_ns END)`
	busbwSQL = `COALESCE(` + toolValueHead + `busbw` + toolValueTail +
		`, CASE WHEN r.benchmark = 'all2all' THEN 1.0 * (r.ranks - 1) * s.size * s.iterations / s.elapsed_ns END)`
)

// withToolUnit returns m, a tool value's metric (tool:NAME), with the
// unit its tools printed it in among the runs of fs, rather than its
// name; units that differ are all named ("us or ms"). Any other metric,
// or a value no selected run has a unit for, is returned as it is.
func (db *DB) withToolUnit(ctx context.Context, m Metric, fs ...RunFilter) (Metric, error) {
	name, ok := strings.CutPrefix(m.Name, ToolMetricPrefix)
	if !ok {
		return m, nil
	}
	var units []string
	for _, f := range fs {
		where, args := f.where()
		rows, err := db.db.QueryContext(ctx, `SELECT DISTINCT v.unit FROM tool_values v WHERE v.name = ? AND v.unit != ''
			AND v.run_id IN (SELECT r.id FROM runs r JOIN points p ON p.id = r.point_id JOIN sweeps s ON s.id = p.sweep_id`+where+`)`,
			append([]any{name}, args...)...)
		if err != nil {
			return m, fmt.Errorf("unit of tool value %s: %w", name, err)
		}
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				rows.Close()
				return m, fmt.Errorf("unit of tool value %s: %w", name, err)
			}
			if !slices.Contains(units, u) {
				units = append(units, u)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return m, fmt.Errorf("unit of tool value %s: %w", name, err)
		}
	}
	if len(units) > 0 {
		slices.Sort(units)
		m.Unit = strings.Join(units, " or ")
	}
	return m, nil
}
