// Package native is the measuring core of efaxx-runner: MPI bootstrap,
// libfabric endpoints and the timed loops, written in C and reached through
// one small cgo file. Only cmd/efaxx-runner imports it.
package native

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"efaxx/benchmarks"
)

// StrategyIndex returns the C value of a strategy name: its index in
// benchmarks.Strategies.
func StrategyIndex(name string) (int, error) {
	if i := slices.Index(benchmarks.Strategies, name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("unknown strategy %q", name)
}

// checkRanks refuses a job too small or too large for the benchmark, as
// a sweep's validation refuses its ranks. The rank range lives in the
// benchmarks table; the C table names benchmarks only (and refuses an
// unknown one).
func checkRanks(name string, world int) error {
	b, err := benchmarks.Lookup(name)
	switch {
	case err != nil || !b.Measured():
	case world < b.MinRanks:
		return fmt.Errorf("%s needs at least %d ranks, got %d", name, b.MinRanks, world)
	case world > b.MaxRanks && b.MinRanks == b.MaxRanks:
		return fmt.Errorf("%s runs on %d rank%s, got %d: launch it with -np %d", name, b.MaxRanks, plural(b.MaxRanks), world, b.MaxRanks)
	case world > b.MaxRanks:
		return fmt.Errorf("%s runs on at most %d ranks, got %d", name, b.MaxRanks, world)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Config says what one step measures.
type Config struct {
	Benchmark  string        // a benchmark of the benchmarks table that efaxx-runner measures
	Provider   string        // "auto", "shm", "tcp", "efa", or another libfabric provider
	NICs       string        // comma-separated libfabric domains or patterns ("lo", "nic*"); empty: the provider's
	Rails      int           // endpoints per rank, one per NIC; NICs are reused when there are fewer
	Strategy   string        // one of Strategies
	Core       int           // CPU to pin the measuring (queue: consuming) thread to; -1: none
	Memory     int           // network buffers: MemoryHost, MemoryPinned or MemoryDevice
	MaxSize    uint64        // largest message size; buffers are sized for it
	Chunk      uint64        // bytes per fabric operation
	Window     int           // operations in flight per rail
	Slots      int           // iterations a writer may run ahead of the target's verification, a power of two; 0: 64
	Iterations uint64        // timed iterations per size and peer
	Duration   time.Duration // > 0: each size's timed iterations fill about this long instead (sendrecv, send, write, all2all)
	Warmup     uint64        // untimed iterations before them
	Timeout    time.Duration // longest wait without progress
	// CorruptSize, when non-zero, makes rank 0 corrupt one byte of the last
	// iteration at this size: a test hook proving that verification fails.
	CorruptSize uint64
	// CorruptStampSize, when non-zero, makes rank 0 damage the last stamp
	// of the middle iteration at this size (checked by its stamps only): a
	// test hook proving that every iteration's stamps are checked.
	CorruptStampSize uint64
	// CorruptRank is the rank whose sends those hooks damage: 0, or a
	// peer that sends too (sendrecv's answers, all2all).
	CorruptRank int

	// GPU benchmarks.
	Grid, Block int  // ipc: copy kernel launch; Grid -1: sized from the device
	Pull        bool // ipc: the target's GPU reads the source's buffer (else the source's GPU writes)
	Bidir       bool // ipc: the two GPUs of each pair write into each other at once
	Shifted     bool // ipc-all2all: a GPU's copies one at a time, to rank+1 first (else all at once)
	Cells       int  // queue, proxy: CellsPinned, CellsManaged or CellsDevice
	Blocking    bool // queue, proxy: wait for each command's completion (else NBI)
	Producers   int  // queue: threads pushing commands
	CPUProducer bool // queue: producers on CPU threads, no GPU
}

// Rail is one opened endpoint.
type Rail struct {
	Domain  string // the NIC (libfabric domain)
	Fabric  string
	LinkBps uint64 // link speed in bit/s as the provider reports it; 0 when unknown
}

// Where a network benchmark's buffers live.
const (
	MemoryHost   = 0 // malloc'd, registered with the provider only
	MemoryPinned = 1 // also registered with CUDA (page-locked, mapped for GPU kernels)
	MemoryDevice = 2 // GPU memory, registered with the provider through FI_HMEM
)

// Where the queue's cells live.
const (
	CellsPinned  = 0
	CellsManaged = 1
	CellsDevice  = 2
)

// Info fingerprints this rank.
type Info struct {
	Rank, World, LocalRank, LocalSize int
	Host                              string
	Provider                          string
	MRMode                            []string
	Libfabric, MPI                    string
	Core                              int // -1 when not pinned
	Rails                             []Rail
	GPU                               string // the GPU a GPU benchmark opened
	HostPages                         string // how much of the host data buffers huge pages back
	LibfabricLib                      string // the libfabric library loaded (its path)
	Memory                            string // where the data buffers are and what registered them
}

// Sample is one rank's measurement against one peer, or all (Peer -1), at one size.
type Sample struct {
	Peer       int
	Role       string // "initiator", "target" or "both"
	Size       uint64
	BytesSent  uint64 // per iteration
	BytesRecv  uint64 // per iteration
	Iterations uint64
	ElapsedNs  uint64
	LatMin     uint64 // per-iteration ns
	LatP50     uint64
	LatP99     uint64
	LatMax     uint64
	RailBytes  []uint64 // bytes sent on each rail over the timed iterations
	Requeued   uint64   // posts refused with -FI_EAGAIN and posted later from the pending queue
	Variant    string   // how it was measured, when a run measures a size several ways
}

// ErrNoCgo is returned by every entry point of a build without cgo.
var ErrNoCgo = errors.New("native: efaxx-runner was built without cgo; rebuild with CGO_ENABLED=1")
