package results

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

// medianSQL is the median of value over a group of n rows, given each
// row's 1-based position i in value order: the middle value, or the mean
// of the two middle values when n is even.
func medianSQL(value, i, n string) string {
	return `AVG(` + value + `) FILTER (WHERE ` + i + ` IN ((` + n + ` + 1) / 2, (` + n + ` + 2) / 2))`
}

// directionGbpsSQL is the busier direction of one sample in Gbps: what one
// way of a full-duplex link carried. Percent of link divides it by the link.
const directionGbpsSQL = `8.0 * MAX(s.bytes_sent, s.bytes_recv) * s.iterations / s.elapsed_ns`

// percentLinkSQL is directionGbpsSQL as a percent of the capacity of the
// NICs behind the sample's rails (s.link_bps, each NIC counted once), or
// NULL when that capacity is unknown.
const percentLinkSQL = `CASE WHEN s.link_bps > 0 THEN 100.0 * ` + directionGbpsSQL + ` * 1e9 / s.link_bps END`

// libefaxxGbpsSQL is the bandwidth as Libefaxx prints it (reference §9):
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
const (
	algbwSQL = `CASE WHEN r.benchmark = 'all2all' THEN 1.0 * r.ranks * s.size * s.iterations / s.elapsed_ns END`
	busbwSQL = `CASE WHEN r.benchmark = 'all2all' THEN 1.0 * (r.ranks - 1) * s.size * s.iterations / s.elapsed_ns END`
)
