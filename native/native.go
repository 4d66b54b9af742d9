// Package native is the measuring core of efaxx-runner: MPI bootstrap,
// libfabric endpoints and the timed loops, written in C and reached through
// one small cgo file. Only cmd/efaxx-runner imports it.
package native

import (
	"errors"
	"time"
)

// Config says what one step measures.
type Config struct {
	Benchmark  string        // "sendrecv" or "write"
	Provider   string        // "auto", "shm", "tcp", "efa", or another libfabric provider
	NIC        string        // libfabric domain ("lo", "nic0"); empty: the provider's choice
	MaxSize    uint64        // largest message size; buffers are sized for it
	Chunk      uint64        // bytes per fabric operation
	Window     int           // operations in flight
	Iterations uint64        // timed iterations per size and peer
	Warmup     uint64        // untimed iterations before them
	Timeout    time.Duration // longest wait without progress
	// CorruptSize, when non-zero, makes rank 0 corrupt one byte of the last
	// iteration at this size: a test hook proving that verification fails.
	CorruptSize uint64

	// GPU benchmarks.
	Grid, Block int  // ipc: copy kernel launch; Grid -1: sized from the device
	Pull        bool // ipc: the target's GPU reads rank 0's buffer (else rank 0's GPU writes)
	Cells       int  // queue: CellsPinned, CellsManaged or CellsDevice
	Blocking    bool // queue: wait for each command's completion (else NBI)
	Producers   int  // queue: threads pushing commands
	CPUProducer bool // queue: producers on CPU threads, no GPU
	Core        int  // CPU for the measuring thread; -1: not pinned
}

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
	Provider, Fabric, Domain          string
	MRMode                            []string
	LinkBps                           uint64
	Libfabric, MPI                    string
	GPU                               string // the GPU a GPU benchmark opened
}

// Sample is one rank's measurement against one peer at one size.
type Sample struct {
	Peer       int
	Initiator  bool
	Size       uint64
	BytesSent  uint64 // per iteration
	BytesRecv  uint64 // per iteration
	Iterations uint64
	ElapsedNs  uint64
	LatMin     uint64 // per-iteration ns
	LatP50     uint64
	LatP99     uint64
	LatMax     uint64
	Variant    string // how it was measured, when a run measures a size several ways
}

// ErrNoCgo is returned by every entry point of a build without cgo.
var ErrNoCgo = errors.New("native: efaxx-runner was built without cgo; rebuild with CGO_ENABLED=1")
