//go:build cgo

package native

/*
#cgo pkg-config: libfabric ompi-c
#cgo CFLAGS: -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter -I${SRCDIR}/../kernels
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "efaxx.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"strings"
	"unsafe"
)

func init() {
	// MPI is initialised with MPI_THREAD_FUNNELED: every MPI call must come
	// from the thread that initialised it, so main stays on one OS thread.
	runtime.LockOSThread()
}

// Process is this rank's MPI membership. Its fingerprint lives in C memory
// because the native context keeps a pointer to it.
type Process struct {
	info *C.efx_info
	err  *C.char
}

// Init initialises MPI and learns this rank's place in the job. Call it
// from the main goroutine. When MPI fails after this rank has learnt its
// rank, Init returns the Process with the error, so that the rank can
// still write its records and abort the job; before, it returns nil.
func Init() (*Process, error) {
	info, msg := C.calloc(1, C.sizeof_efx_info), C.calloc(1, C.EFX_ERRLEN)
	if info == nil || msg == nil {
		C.free(info)
		C.free(msg)
		return nil, errors.New("native: allocate the fingerprint: out of memory")
	}
	p := &Process{info: (*C.efx_info)(info), err: (*C.char)(msg)}
	if C.efx_mpi_init(p.info, p.err) != 0 {
		if p.info.rank < 0 {
			return nil, p.lastError()
		}
		return p, p.lastError()
	}
	return p, nil
}

func (p *Process) lastError() error { return errors.New(C.GoString(p.err)) }

// Info returns the fingerprint: ranks after Init, the fabric after Open.
func (p *Process) Info() Info {
	in := p.info
	var modes []string
	if s := C.GoString(&in.mr_mode[0]); s != "" {
		modes = strings.Split(s, "|")
	}
	rails := make([]Rail, int(in.nrails))
	for i := range rails {
		r := &in.rail[i]
		rails[i] = Rail{Domain: C.GoString(&r.domain[0]), Fabric: C.GoString(&r.fabric[0]), LinkBps: uint64(r.link_bps)}
	}
	return Info{
		Rank: int(in.rank), World: int(in.world), LocalRank: int(in.local_rank), LocalSize: int(in.local_size),
		Host: C.GoString(&in.host[0]), Provider: C.GoString(&in.provider[0]), MRMode: modes,
		Libfabric: C.GoString(&in.libfabric[0]), MPI: C.GoString(&in.mpi[0]), Core: int(in.core), Rails: rails,
		GPU: C.GoString(&in.gpu[0]), HostPages: C.GoString(&in.host_pages[0]),
		LibfabricLib: C.GoString(&in.libfabric_lib[0]), Memory: C.GoString(&in.memory[0]),
	}
}

// Finalize ends MPI after a successful step.
func (p *Process) Finalize() error {
	if C.efx_mpi_finalize(p.err) != 0 {
		return p.lastError()
	}
	return nil
}

// Abort ends every rank of the job: a failed rank must not leave its
// peers waiting. It returns only when MPI could not abort.
func (p *Process) Abort(code int) error {
	if C.efx_mpi_abort(C.int(code), p.err) != 0 {
		return p.lastError()
	}
	return nil
}

// Step holds what one step measures with: its open endpoints, buffers
// and registrations.
type Step struct {
	p     *Process
	ctx   *C.efx_ctx
	out   *C.efx_sample
	rails int
}

// Open resolves the provider, opens the rails, registers buffers and
// exchanges addresses with every rank.
func (p *Process) Open(cfg Config) (*Step, error) {
	strategy, err := StrategyIndex(cfg.Strategy)
	if err != nil {
		return nil, err
	}
	if err := checkRanks(cfg.Benchmark, int(p.info.world)); err != nil {
		return nil, err
	}
	bench, prov, nics := C.CString(cfg.Benchmark), C.CString(cfg.Provider), C.CString(cfg.NICs)
	defer C.free(unsafe.Pointer(bench))
	defer C.free(unsafe.Pointer(prov))
	defer C.free(unsafe.Pointer(nics))
	c := C.efx_config{
		benchmark: bench, provider: prov, nics: nics,
		rails: C.uint32_t(cfg.Rails), strategy: C.uint32_t(strategy), core: C.int32_t(cfg.Core), memory: C.int32_t(cfg.Memory),
		max_size: C.uint64_t(cfg.MaxSize), chunk: C.uint64_t(cfg.Chunk), window: C.uint32_t(cfg.Window), slots: C.uint32_t(cfg.Slots),
		iterations: C.uint64_t(cfg.Iterations), duration_ns: C.int64_t(cfg.Duration.Nanoseconds()), warmup: C.uint64_t(cfg.Warmup),
		timeout_ns: C.int64_t(cfg.Timeout.Nanoseconds()), corrupt_size: C.uint64_t(cfg.CorruptSize),
		corrupt_stamp_size: C.uint64_t(cfg.CorruptStampSize), corrupt_rank: C.int32_t(cfg.CorruptRank),
		grid: C.int32_t(cfg.Grid), block: C.int32_t(cfg.Block), pull: cbool(cfg.Pull), bidir: cbool(cfg.Bidir), shifted: cbool(cfg.Shifted),
		cells: C.int32_t(cfg.Cells), blocking: cbool(cfg.Blocking), producers: C.uint32_t(cfg.Producers), cpu_producer: cbool(cfg.CPUProducer),
	}
	r := &Step{p: p, rails: cfg.Rails}
	if C.efx_open(&c, p.info, &r.ctx, p.err) != 0 {
		return nil, p.lastError()
	}
	r.out = (*C.efx_sample)(C.calloc(C.size_t(C.efx_samples(p.info.world)), C.sizeof_efx_sample))
	if r.out == nil {
		C.efx_close(r.ctx)
		return nil, errors.New("native: allocate the samples: out of memory")
	}
	return r, nil
}

var roles = map[C.int32_t]string{C.EFX_ROLE_INITIATOR: "initiator", C.EFX_ROLE_TARGET: "target", C.EFX_ROLE_BOTH: "both"}

// Run measures one message size against every peer; it crosses into C once.
func (r *Step) Run(size uint64) ([]Sample, error) {
	var n C.int
	rc := C.efx_run(r.ctx, C.uint64_t(size), r.out, &n, r.p.err)
	out := unsafe.Slice(r.out, int(C.efx_samples(r.p.info.world)))
	samples := make([]Sample, 0, int(n))
	for _, s := range out[:int(n)] {
		rb := make([]uint64, r.rails)
		for i := range rb {
			rb[i] = uint64(s.rail_bytes[i])
		}
		samples = append(samples, Sample{
			Peer: int(s.peer), Role: roles[s.role], Size: uint64(s.size),
			BytesSent: uint64(s.bytes_sent), BytesRecv: uint64(s.bytes_recv),
			Iterations: uint64(s.iterations), ElapsedNs: uint64(s.elapsed_ns),
			LatMin: uint64(s.lat_min), LatP50: uint64(s.lat_p50), LatP99: uint64(s.lat_p99), LatMax: uint64(s.lat_max),
			RailBytes: rb, Requeued: uint64(s.requeued), Variant: C.GoString(&s.variant[0]),
		})
	}
	if rc != 0 {
		return samples, r.p.lastError()
	}
	return samples, nil
}

// IPCPlan is the order in which an ipc step on world ranks measures its
// pairs: each round's source and target (with bidir, the two ranks that
// write into each other at once), as native/ipc.c runs them.
func IPCPlan(world int, bidir bool) [][2]int {
	if world < 1 {
		return nil
	}
	rounds := (*[1 << 20][2]C.int32_t)(C.calloc(C.size_t(world*world), C.size_t(unsafe.Sizeof([2]C.int32_t{}))))
	defer C.free(unsafe.Pointer(rounds))
	n := int(C.efx_ipc_plan(C.int(world), cbool(bidir), &rounds[0]))
	out := make([][2]int, n)
	for i := range out {
		out[i] = [2]int{int(rounds[i][0]), int(rounds[i][1])}
	}
	return out
}

// A2APlan is the order in which an ipc-all2all step on world ranks runs
// its copies, as native/ipc_all2all.c runs them: each step's copies
// (source, target) at once, every ordered pair alone and then all of them.
func A2APlan(world int) [][][2]int {
	if world < 1 {
		return nil
	}
	copies := (*[1 << 20][3]C.int32_t)(C.calloc(C.size_t(2*world*world), C.size_t(unsafe.Sizeof([3]C.int32_t{}))))
	defer C.free(unsafe.Pointer(copies))
	n := int(C.efx_a2a_plan(C.int(world), &copies[0]))
	var steps [][][2]int
	for _, cp := range copies[:n] {
		k := int(cp[0])
		for len(steps) <= k {
			steps = append(steps, nil)
		}
		steps[k] = append(steps[k], [2]int{int(cp[1]), int(cp[2])})
	}
	return steps
}

// Benchmarks names the benchmarks of the native core's table, in its order.
func Benchmarks() []string {
	var names []string
	for i := C.int(0); C.efx_benchmark_name(i) != nil; i++ {
		names = append(names, C.GoString(C.efx_benchmark_name(i)))
	}
	return names
}

func cbool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

// Close releases the endpoint and buffers.
func (r *Step) Close() {
	C.efx_close(r.ctx)
	C.free(unsafe.Pointer(r.out))
}
