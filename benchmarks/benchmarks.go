// Package benchmarks is the table of the benchmarks efaxx runs: their
// names, what kind each is, how many ranks it runs on and which sweep keys
// it takes. Sweeps (harness), the rank process (cmd/efaxx-runner) and the
// native core (native) all read it here, so that they cannot disagree; it
// imports nothing of efaxx's.
//
// A new benchmark is a row of table (and, when efaxx-runner measures it,
// an entry of native's C table of the same name: a test holds the two
// together).
package benchmarks

import (
	"fmt"
	"slices"
)

// Kind says what a benchmark measures.
type Kind string

const (
	Network  Kind = "network"  // moves data between ranks over libfabric, on the host's CPU
	GPU      Kind = "gpu"      // measures a GPU path, through the CUDA plugin
	External Kind = "external" // runs a program that is not efaxx-runner (nccl-tests, OSU, ...)
)

// Benchmark is one row of the table.
type Benchmark struct {
	Name     string // as sweeps and efaxx-runner's --benchmark name it
	Kind     Kind
	Doc      string // one line: what it measures
	MinRanks int
	MaxRanks int
	// OneNode says its ranks are the GPUs of one node: CUDA IPC does not
	// cross nodes, so it runs on one.
	OneNode bool

	// Keys are the keys of a sweep's [params] that the benchmark takes,
	// among those that only some benchmarks take: a key that no row names
	// applies to every benchmark (ranks, sizes, timeout). A key taken here
	// reaches what efaxx-runner records:
	//   - rails: the samples carry their rails, strategy and link speed;
	//   - pinning: the measuring thread is pinned as the policy says, and
	//     the fingerprint says how (without it: "none", or --core's core).
	Keys []string

	// How its numbers are read (results: docs/metrics.md). Metric is the
	// headline metric ("" for a network's gbps); Reference the variant of
	// the same run each sample is judged against, its floor or reference
	// ("" for none); RoundTrip says one iteration is a round trip (a
	// ping-pong), so its one-way latency is half an iteration.
	Metric    string
	Reference string
	RoundTrip bool

	// FixedRails says its ops go on rails by a fixed rule: a two-sided
	// receive must be posted on the rail its message comes by before the
	// sender picks one, so it cannot use the adaptive strategy.
	FixedRails bool
	// OnePeer says it writes to one peer at a time (the proxy's CPU
	// thread), so it cannot use round-robin, every peer at once.
	OnePeer bool

	// Chunk is its bytes per fabric operation when a sweep names none, 0
	// for Libefaxx's 1 MiB (DefaultChunk).
	Chunk uint64

	// Word, when not 0, says its sizes are whole words of that many bytes
	// (ipc's copy kernels move 16-byte words, the queue's commands carry
	// 8-byte ones); Largest, when not 0, is the largest size it takes
	// below MaxSize (the queue's payload length is 32 bits). CheckSize
	// holds a size to both, as native's C refuses it at run time.
	Word       uint64
	Largest    uint64
	LargestWhy string // why Largest: what the limit is
}

// CheckSize says why b cannot measure a message of size bytes, if it
// cannot: a size that is not whole words of b.Word, or above b.Largest.
func (b Benchmark) CheckSize(size uint64) error {
	switch {
	case b.Word != 0 && size%b.Word != 0:
		return fmt.Errorf("%s moves whole %d-byte words: %d is not a multiple of %d", b.Name, b.Word, size, b.Word)
	case b.Largest != 0 && size > b.Largest:
		return fmt.Errorf("%d is more than %s takes: at most %d (%s)", size, b.Name, b.Largest, b.LargestWhy)
	}
	return nil
}

// DefaultChunk is the bytes per fabric operation of a sweep that names
// none (chunk = "auto"), for buffers in memory (host, pinned or device):
// under the strategies that place ops by position (single, split,
// round-robin) the row's Chunk, or DeviceChunk on GPU memory; Libefaxx's
// 1 MiB under per-op and adaptive, whose unit of spreading over the rails
// is the chunk, or where the row has none.
func (b Benchmark) DefaultChunk(strategy, memory string) uint64 {
	switch {
	case strategy == "per-op" || strategy == "adaptive":
		return 1 << 20
	case memory == "device":
		return DeviceChunk
	case b.Chunk == 0:
		return 1 << 20
	}
	return b.Chunk
}

// DeviceChunk is the ops' size on GPU memory (memory = "device"), where
// each op costs far more than on host memory: shm's CUDA IPC waits for
// one copy and a round trip of commands per op. On two H200s, 256 MiB
// went at 80, 243 and 357 GB/s in writes of 1, 8 and 64 MiB ops (the
// last 0.92 of an NVLink copy of the same bytes), and sendrecv at 36,
// 120 and 176 (docs/performance.md).
const DeviceChunk = 64 << 20

// Memories are the kinds of memory a network benchmark's buffers can be
// in: host, host memory pinned and mapped by CUDA, and GPU memory.
var Memories = []string{"host", "pinned", "device"}

// Takes reports whether b takes the [params] key.
func (b Benchmark) Takes(key string) bool { return !restricted(key) || slices.Contains(b.Keys, key) }

// CheckStrategy says why b cannot spread its ops by strategy, if it
// cannot: a two-sided benchmark (FixedRails) is never adaptive, and one
// that writes to one peer at a time (OnePeer) never round-robin.
func (b Benchmark) CheckStrategy(strategy string) error {
	switch {
	case b.FixedRails && strategy == "adaptive":
		return fmt.Errorf("%s cannot use the adaptive strategy: a receive must be posted on the rail its message "+
			"arrives on before the sender picks one; use write or all2all, or a fixed strategy", b.Name)
	case b.OnePeer && strategy == "round-robin":
		return fmt.Errorf("%s cannot use the round-robin strategy: it writes to one peer at a time; "+
			"use single, split, per-op or adaptive", b.Name)
	}
	return nil
}

// Measured reports whether efaxx-runner measures b itself, in its native
// core: every benchmark but an external program.
func (b Benchmark) Measured() bool { return b.Kind != External }

// The keys rows share.
var (
	// measured: the keys of the timed loop of efaxx-runner's own benchmarks.
	measured = []string{"iterations", "warmup"}
	// timed: a time budget per size instead of a count, for the
	// benchmarks whose every rank runs the one timed loop (native/loop.c).
	timed = []string{"duration"}
	// fabric: the keys of a libfabric data path (NICs, rails, chunks).
	fabric = []string{"provider", "chunk", "window", "rails", "strategy", "nics", "pinning", "memory", "link_gbps"}
)

// table is every benchmark, in the order messages list them.
var table = []Benchmark{
	// On GPU memory (memory = "device"), rank 0 of sendrecv and write
	// measures cudaMemcpy of the same bytes in the same run: their reference.
	{Name: "sendrecv", Kind: Network, Doc: "libfabric SEND/RECV ping-pong between rank pairs",
		MinRanks: 2, MaxRanks: 65536, Keys: slices.Concat(measured, timed, fabric),
		Reference: "cudaMemcpy", RoundTrip: true, FixedRails: true},
	// The two-sided stream, as fi_rdm_tagged_bw and osu_bw measure it: a
	// ping-pong (sendrecv) cannot overlap one message with the next.
	{Name: "send", Kind: Network, Doc: "libfabric SEND/RECV one way, rank 0 streaming to each peer in turn",
		MinRanks: 2, MaxRanks: 65536, Keys: slices.Concat(measured, timed, fabric, []string{"slots"}),
		Reference: "cudaMemcpy", FixedRails: true},
	// A write goes in ops of up to 8 MiB: a message of up to 8 MiB in one,
	// as fi_rma_bw and Libefaxx's single-channel write post it. Over
	// loopback tcp, writes of 4 and 8 MiB in 1 MiB ops ran 10% and 7%
	// slower than in one op, and 64 MiB in one op 10% slower than in 1
	// MiB ops, in 8 MiB ones as fast (docs/performance.md). sendrecv keeps
	// 1 MiB: tcp's rendezvous made 8 MiB sends 24% slower than 1 MiB ones.
	{Name: "write", Kind: Network, Doc: "libfabric RDMA WRITE with remote CQ data, rank 0 to its peers",
		MinRanks: 2, MaxRanks: 65536, Keys: slices.Concat(measured, timed, fabric, []string{"slots"}),
		Reference: "cudaMemcpy", Chunk: 8 << 20},
	{Name: "all2all", Kind: Network, Doc: "every rank RDMA-writes its buffer to every other rank at once",
		MinRanks: 2, MaxRanks: 65536, Keys: slices.Concat(measured, timed, fabric, []string{"slots"})},
	{Name: "proxy", Kind: GPU, Doc: "GPU-initiated RDMA writes through a CPU proxy, beside the CPU's own",
		MinRanks: 2, MaxRanks: 65536, Keys: slices.Concat(measured, fabric, []string{"slots", "cells", "mode"}),
		Reference: "cpu", OnePeer: true}, // the CPU's own writes of the same bytes
	{Name: "ipc", Kind: GPU, Doc: "GPU to GPU in a node through CUDA IPC, a copy kernel beside the copy engines",
		MinRanks: 2, MaxRanks: 64, OneNode: true, // one rank per GPU of one node
		Keys:   slices.Concat(measured, []string{"launch", "direction"}),
		Metric: "dir_gbs", Reference: "memcpy", // the copy kernel against the copy engines
		Word: 16},
	// Its reference is not one variant but the sum of the pairs' rates
	// alone, measured in the same run (results.AllToAllStats).
	{Name: "ipc-all2all", Kind: GPU, Doc: "every GPU of a node writes into every other through CUDA IPC, at once or one peer at a time, beside each pair alone",
		MinRanks: 2, MaxRanks: 64, OneNode: true, // one rank per GPU of one node
		Keys:   slices.Concat(measured, []string{"launch", "schedule"}),
		Metric: "dir_gbs", Word: 16},
	{Name: "queue", Kind: GPU, Doc: "GPU (or CPU) producers to a CPU consumer through a command ring",
		MinRanks: 1, MaxRanks: 1, Keys: slices.Concat(measured, []string{"cells", "mode", "producer", "producers"}),
		Metric: "mops", Reference: "floor", // the ring against its bare floor
		Word: 8, Largest: 1<<32 - 8, LargestWhy: "a command's payload length is 32 bits"},
	{Name: "external", Kind: External, Doc: "a program of the sweep's [external] table (nccl-tests, NVSHMEM perftests, OSU, ...)",
		MinRanks: 1, MaxRanks: 65536},
}

// All returns every benchmark, in table order.
func All() []Benchmark { return slices.Clone(table) }

// Names returns the names of the benchmarks for which keep is true (every
// one for a nil keep), in table order.
func Names(keep func(Benchmark) bool) []string {
	var names []string
	for _, b := range table {
		if keep == nil || keep(b) {
			names = append(names, b.Name)
		}
	}
	return names
}

// Lookup returns the benchmark called name.
func Lookup(name string) (Benchmark, error) {
	for _, b := range table {
		if b.Name == name {
			return b, nil
		}
	}
	return Benchmark{}, fmt.Errorf("unknown benchmark %q", name)
}

// Taking returns the names of the benchmarks that take key, in table order.
func Taking(key string) []string { return Names(func(b Benchmark) bool { return b.Takes(key) }) }

// restricted reports whether some row names key: then only those rows take it.
func restricted(key string) bool {
	return slices.ContainsFunc(table, func(b Benchmark) bool { return slices.Contains(b.Keys, key) })
}

// RoundTrips returns the names of the benchmarks whose iteration is a
// round trip.
func RoundTrips() []string { return Names(func(b Benchmark) bool { return b.RoundTrip }) }

// RestrictedKeys returns every key some row names, sorted: the keys that
// not every benchmark takes.
func RestrictedKeys() []string {
	var keys []string
	for _, b := range table {
		keys = append(keys, b.Keys...)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// MaxSize is the largest message size (and chunk) efaxx takes, 1 TiB: more
// than any host or GPU memory holds a buffer of, and small enough that the
// runner's buffer arithmetic (two slots of it, rounded up to a cache line,
// one region per peer) cannot overflow a uint64 and wrap to a small buffer.
// Sweeps refuse a larger size or chunk, and efaxx-runner's --sizes and
// --chunk too.
const MaxSize = 1 << 40

// MaxIterations is the most timed iterations, and the most warm-up
// iterations, a point takes (the iterations and warmup keys, efaxx-runner's
// --iterations and --warmup): 10^12, days of the fastest iteration, and
// small enough that the native loop's warm-up plus iterations cannot wrap a
// uint64 (--warmup 18446744073709551615 wrapped the count and ended ok
// with latencies of 0).
const MaxIterations = 1_000_000_000_000

// Strategies are the ways a multi-rail transfer spreads over the rails, by
// the name the strategy key and efaxx-runner's --strategy take; the index
// is native's C value (native/xfer.c).
var Strategies = []string{"single", "split", "round-robin", "per-op", "adaptive"}
