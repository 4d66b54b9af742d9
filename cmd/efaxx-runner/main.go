// Command efaxx-runner is one rank of an efaxx measurement. mpirun or
// srun --mpi=pmix starts one per rank; each writes its own NDJSON file
// (results/record) into --out: a fingerprint, one sample per message size
// and peer, and an end record with the status.
//
// It is started by efaxx, not by hand; its flags mirror a sweep point.
// "efaxx-runner external --out DIR" runs an external program instead, as
// one rank, and records how it ended (see runExternal).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"efaxx/benchmarks"
	"efaxx/native"
	"efaxx/results/record"
	"efaxx/shmregion"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

type options struct {
	cfg      native.Config
	bench    benchmarks.Benchmark // the row of cfg.Benchmark
	sizes    []uint64
	out      string
	pinning  string  // "numa" or "none"
	linkGbps float64 // per-NIC link speed to record; 0: the provider's
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) > 0 && args[0] == "external" {
		return runExternal(args[1:])
	}
	if len(args) > 0 && args[0] == watchMode {
		return runWatch()
	}
	opts, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner:", err)
		return 2
	}
	stop := onSignal()
	// A region named after this pid before this process has made one was
	// left by an earlier process of the same pid; over it, libfabric's shm
	// refuses this rank's endpoint (fi_enable: EBUSY).
	for _, path := range shmregion.Remove(shmregion.Dir, os.Getpid()) {
		fmt.Fprintf(os.Stderr, "efaxx-runner: removed %s, a shared-memory region an earlier process of this pid left behind; "+
			"libfabric's shm would refuse to make this rank's endpoint over it\n", path)
	}
	proc, err := native.Init()
	if proc == nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner:", err)
		return 1
	}
	if err := measure(proc, opts, err, stop); err != nil {
		in := proc.Info()
		fmt.Fprintf(os.Stderr, "efaxx-runner: rank %d on %s: %v\n", in.Rank, in.Host, err)
		stop.hold()
		// Peers hit by the same fault (a dead peer) get stopGrace to fail
		// on their own and say why: once this rank has aborted, mpirun
		// kills them at once, and under load one had been killed before it
		// wrote its end record (its close of the step had given it that
		// time, until a failed step was no longer closed).
		time.Sleep(stopGrace)
		// A failed rank must not leave its peers waiting; Abort returns only if MPI could not abort.
		if err := proc.Abort(1); err != nil {
			fmt.Fprintln(os.Stderr, "efaxx-runner:", err)
		}
		return 1
	}
	stop.hold()
	if err := proc.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner:", err)
		return 1
	}
	return 0
}

// measure runs every size and writes every record; initErr, when MPI
// failed after this rank learnt its rank, is the step's failure. Whatever
// happens, the records written before a failure stay on disk, one
// complete line each.
func measure(proc *native.Process, opts options, initErr error, stop *stopper) error {
	start := time.Now()
	rank := proc.Info().Rank
	w, err := createRankFile(opts.out, rank)
	if err != nil {
		return err
	}
	defer w.Close()
	stop.setFile(w, rank, start)
	placement := place(native.Sysfs{Root: "/"}, opts, proc.Info().LocalRank, proc.Info().LocalSize)
	opts.cfg.NICs, opts.cfg.Core = placement.nics, placement.core
	var step *native.Step
	openErr := initErr
	if openErr == nil {
		step, openErr = proc.Open(opts.cfg)
	}
	if err := w.write(fingerprint(proc.Info(), opts, placement, start)); err != nil {
		return err
	}
	if openErr == nil {
		openErr = measureSizes(step, w, proc.Info(), opts)
		defer closeStep(step, openErr)
	}
	end := record.End{Type: record.TypeEnd, Rank: rank, Status: record.StatusOK,
		ElapsedNs: uint64(time.Since(start).Nanoseconds())}
	if openErr != nil {
		end.Status, end.Error = record.StatusFailed, openErr.Error()
	}
	if err := w.end(end); err != nil {
		return err
	}
	return openErr
}

// closeStep closes step after its measurement. After a failure a peer
// may be gone, and libfabric 1.17 can fault closing an endpoint whose
// connection the peer's death reset (a null read in fi_close, 3 of 8 runs
// of TestRunKilledPeer over tcp): the rank died before it said why and
// aborted its peers. So a failed step is left to the process's exit,
// which frees all it holds but its shm regions, removed here.
func closeStep(step *native.Step, failed error) {
	if failed == nil {
		step.Close()
		return
	}
	shmregion.Remove(shmregion.Dir, os.Getpid())
}

// stopGrace is how long a rank stopped by a signal stays after writing
// its end record. mpirun waits odls_base_sigkill_timeout (1 s) between
// SIGTERM and SIGKILL, but the exit of any rank cuts that wait short: a
// rank that left at once got its peers killed 2 ms after their SIGTERM,
// under load before they had written why they stopped. srun's SIGKILL
// comes only after Slurm's KillWait, so the grace costs it nothing more.
const stopGrace = 500 * time.Millisecond

// stopper makes a SIGTERM or SIGINT (mpirun and srun send one to the
// surviving ranks when a rank dies or the job is cancelled) end the rank
// file, once setFile has named it, with a failed record naming the
// signal; the process exits 1 stopGrace later. It stays on until the
// process ends, after the end record too, so that no rank leaves at once.
// The measuring thread is in C and cannot be interrupted, so this runs
// beside it.
type stopper struct {
	mu      sync.Mutex
	file    *rankFile
	rank    int
	start   time.Time
	stopped chan struct{} // closed when a signal has come
}

func onSignal() *stopper {
	s := &stopper{rank: -1, stopped: make(chan struct{})}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		sig := <-ch
		close(s.stopped)
		s.mu.Lock()
		w, r, t0 := s.file, s.rank, s.start
		s.mu.Unlock()
		name, who := signalName(sig), "efaxx-runner"
		if w != nil {
			w.end(record.End{Type: record.TypeEnd, Rank: r, Status: record.StatusFailed,
				Error: fmt.Sprintf("stopped by %s while measuring: the launcher stops every rank when one "+
					"dies or the job is cancelled; see the other ranks' records", name),
				ElapsedNs: uint64(time.Since(t0).Nanoseconds()), Signal: sig.String()})
		}
		if r >= 0 {
			who = fmt.Sprintf("efaxx-runner: rank %d", r)
		}
		fmt.Fprintf(os.Stderr, "%s: stopped by %s\n", who, name)
		time.Sleep(stopGrace)
		os.Exit(1)
	}()
	return s
}

// setFile names the rank file a signal ends, and the rank's start.
func (s *stopper) setFile(w *rankFile, rank int, start time.Time) {
	s.mu.Lock()
	s.file, s.rank, s.start = w, rank, start
	s.mu.Unlock()
}

// hold never returns once a signal has come, so that the rank neither
// aborts nor exits before stopGrace is over: a measurement that failed
// because the launcher is stopping the job (a peer gone) ends here.
func (s *stopper) hold() {
	select {
	case <-s.stopped:
		select {} // the signal's goroutine ends the process
	default:
	}
}

func measureSizes(step *native.Step, w *rankFile, in native.Info, opts options) error {
	for _, size := range opts.sizes {
		samples, err := step.Run(size)
		for _, s := range samples {
			if werr := w.write(sampleRecord(in, opts, s)); werr != nil {
				return werr
			}
		}
		if err != nil {
			return fmt.Errorf("size %d: %w", size, err)
		}
	}
	return nil
}

func parseFlags(args []string) (options, error) {
	var o options
	var sizes, memory string
	fs := flag.NewFlagSet("efaxx-runner", flag.ContinueOnError)
	fs.StringVar(&o.cfg.Benchmark, "benchmark", "", strings.Join(benchmarks.Names(benchmarks.Benchmark.Measured), ", "))
	fs.StringVar(&o.cfg.Provider, "provider", "auto", "libfabric provider: auto, shm, tcp, efa, ...")
	fs.StringVar(&o.cfg.NICs, "nic", "auto", "NICs (libfabric domains): comma-separated names or patterns (lo, nic*), or auto")
	fs.IntVar(&o.cfg.Rails, "rails", 1, "endpoints per rank, one per NIC")
	fs.StringVar(&o.cfg.Strategy, "strategy", "single", "how chunks spread over rails: "+strings.Join(benchmarks.Strategies, ", "))
	fs.StringVar(&o.pinning, "pin", "numa", "CPU pinning: numa (a core of the NIC's NUMA node) or none")
	fs.Float64Var(&o.linkGbps, "link-gbps", 0, "link speed per NIC in Gbps to record, up to 1e6; 0: the provider's")
	fs.StringVar(&memory, "memory", "host", "buffer memory: host, pinned (CUDA-registered host) or device (GPU, FI_HMEM)")
	fs.StringVar(&sizes, "sizes", "", "comma-separated message sizes in bytes")
	fs.Uint64Var(&o.cfg.Iterations, "iterations", 100, "timed iterations per size and peer, 1..10^12")
	fs.DurationVar(&o.cfg.Duration, "duration", 0, "sendrecv, send, write, all2all: time each size's timed iterations fill, instead of --iterations (chosen after the warm-up; 0: off)")
	fs.Uint64Var(&o.cfg.Warmup, "warmup", 10, "untimed iterations before them, 0..10^12")
	fs.DurationVar(&o.cfg.Timeout, "timeout", time.Minute, "longest wait without progress")
	fs.Uint64Var(&o.cfg.Chunk, "chunk", 0, "bytes per fabric operation, at most 1 TiB; 0: the benchmark's default (write: 8 MiB, others: 1 MiB; on GPU memory 64 MiB; 1 MiB under per-op and adaptive)")
	fs.IntVar(&o.cfg.Window, "window", 16, "operations in flight per rail, 1..4096")
	fs.IntVar(&o.cfg.Slots, "slots", 64, "a target's buffers for one sender's iterations (write, all2all, proxy): a power of two, 1..64 (1: one buffer, reused)")
	fs.StringVar(&o.out, "out", ".", "directory for this rank's NDJSON file")
	fs.IntVar(&o.cfg.Core, "core", -1, "CPU to pin the measuring thread to, 0..1023, over --pin; -1: as --pin says")
	launch := fs.String("launch", "auto", "ipc, ipc-all2all: copy kernel GRIDxBLOCK, or auto (every SM full; all2all shares it among the copies at once)")
	direction := fs.String("direction", "push", "ipc: push (the source's GPU writes), pull (the target's GPU reads) or bidir (both GPUs of a pair write at once)")
	schedule := fs.String("schedule", "at-once", "ipc-all2all: at-once (a GPU's copies together, the grid shared) or shifted (one at a time, to rank+1 first, then rank+2, ...; each with the whole grid)")
	cells := fs.String("cells", "pinned", "queue: where the cells live: pinned, managed, device, host")
	mode := fs.String("mode", "nbi", "queue, proxy: nbi (one wait at the end) or blocking (a wait per command)")
	producer := fs.String("producer", "gpu", "queue: gpu, or cpu (the ring with no GPU)")
	fs.IntVar(&o.cfg.Producers, "producers", 1, "queue: threads pushing commands, 1..1048576")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		// flag.Parse stops at the first argument that is not a flag: every
		// flag after it would be dropped unseen.
		return o, fmt.Errorf("unexpected argument %q: efaxx-runner takes flags only (and \"external\" first)", fs.Arg(0))
	}
	if *showVersion {
		fmt.Printf("efaxx-runner %s (%s)\n", version, commit)
		return o, flag.ErrHelp
	}
	var err error
	if o.sizes, err = parseSizes(sizes); err != nil {
		return o, err
	}
	if err := o.gpuFlags(*launch, *cells, *mode, *producer); err != nil {
		return o, err
	}
	if *direction != "push" && *direction != "pull" && *direction != "bidir" {
		return o, fmt.Errorf("--direction %q: want push, pull or bidir", *direction)
	}
	o.cfg.Pull = *direction == "pull"
	o.cfg.Bidir = *direction == "bidir"
	if *schedule != "at-once" && *schedule != "shifted" {
		return o, fmt.Errorf("--schedule %q: want at-once or shifted", *schedule)
	}
	o.cfg.Shifted = *schedule == "shifted"
	o.cfg.MaxSize = maxOf(o.sizes)
	if s := os.Getenv("EFAXX_TEST_CORRUPT_SIZE"); s != "" {
		if o.cfg.CorruptSize, err = strconv.ParseUint(s, 10, 64); err != nil {
			return o, fmt.Errorf("EFAXX_TEST_CORRUPT_SIZE=%q: %w", s, err)
		}
	}
	if s := os.Getenv("EFAXX_TEST_CORRUPT_STAMP_SIZE"); s != "" {
		if o.cfg.CorruptStampSize, err = strconv.ParseUint(s, 10, 64); err != nil {
			return o, fmt.Errorf("EFAXX_TEST_CORRUPT_STAMP_SIZE=%q: %w", s, err)
		}
	}
	if s := os.Getenv("EFAXX_TEST_CORRUPT_RANK"); s != "" {
		if o.cfg.CorruptRank, err = strconv.Atoi(s); err != nil {
			return o, fmt.Errorf("EFAXX_TEST_CORRUPT_RANK=%q: %w", s, err)
		}
	}
	if o.cfg.Memory, err = memoryKind(memory); err != nil {
		return o, err
	}
	if err := check(o); err != nil {
		return o, err
	}
	o.bench, err = benchmarks.Lookup(o.cfg.Benchmark)
	if err == nil && o.cfg.Chunk == 0 {
		o.cfg.Chunk = o.bench.DefaultChunk(o.cfg.Strategy, memory)
	}
	if err == nil && !o.bench.Measured() {
		err = fmt.Errorf("%s is not measured here: efaxx runs it through \"efaxx-runner external\"", o.cfg.Benchmark)
	}
	if err != nil {
		return o, fmt.Errorf("--benchmark: %w", err)
	}
	if err := o.bench.CheckStrategy(o.cfg.Strategy); err != nil {
		return o, fmt.Errorf("--strategy: %w", err)
	}
	if err := takes(fs, o.bench); err != nil {
		return o, err
	}
	for _, size := range o.sizes {
		// Here, not when the size is reached after the sizes before it ran.
		if err := o.bench.CheckSize(size); err != nil {
			return o, fmt.Errorf("--sizes: %w", err)
		}
	}
	return o, nil
}

// flagKeys maps each flag that mirrors a key of a sweep's [params] to the
// key (harness/params.go's flag column). The flags not here (--benchmark,
// --out, --core, --version) are the runner's own and apply to every
// benchmark.
var flagKeys = map[string]string{
	"provider": "provider", "nic": "nics", "rails": "rails", "strategy": "strategy", "pin": "pinning",
	"link-gbps": "link_gbps", "memory": "memory", "sizes": "sizes", "iterations": "iterations",
	"duration": "duration", "warmup": "warmup", "timeout": "timeout", "chunk": "chunk", "window": "window",
	"slots": "slots", "launch": "launch", "direction": "direction", "schedule": "schedule", "cells": "cells",
	"mode": "mode", "producer": "producer", "producers": "producers",
}

// takes refuses a flag set on the command line whose key b does not take
// (the benchmarks table's Keys), as a sweep's validation refuses the key:
// the benchmark would ignore it, or worse (queue on CPU with --memory
// device called into a CUDA plugin it never loaded).
func takes(fs *flag.FlagSet, b benchmarks.Benchmark) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if key, ok := flagKeys[f.Name]; ok && err == nil && !b.Takes(key) {
			err = fmt.Errorf("--%s: benchmark %s does not take it (sweep key %s: %s only)",
				f.Name, b.Name, key, strings.Join(benchmarks.Taking(key), ", "))
		}
	})
	return err
}

var launchForm = regexp.MustCompile(`^([1-9][0-9]{0,6})x([1-9][0-9]{0,3})$`)

// The ranges of the flags that reach C as 32-bit numbers: the sweeps'
// (harness/params.go) for window and producers; a core is a bit of a
// cpu_set_t, which holds CPU_SETSIZE (1024) CPUs.
const (
	maxWindow    = 4096
	maxProducers = 1 << 20
	maxCore      = 1023
)

func memoryKind(s string) (int, error) {
	switch s {
	case "host":
		return native.MemoryHost, nil
	case "pinned":
		return native.MemoryPinned, nil
	case "device":
		return native.MemoryDevice, nil
	}
	return 0, fmt.Errorf("--memory %q: want host, pinned or device", s)
}

func check(o options) error {
	if _, err := native.StrategyIndex(o.cfg.Strategy); err != nil {
		return fmt.Errorf("--strategy: %w", err)
	}
	switch {
	case o.cfg.Benchmark == "":
		return errors.New("--benchmark is required")
	case o.pinning != "numa" && o.pinning != "none":
		return fmt.Errorf("--pin %q: want numa or none", o.pinning)
	case o.cfg.Rails < 1 || o.cfg.Rails > 16:
		return errors.New("--rails must be 1..16")
	case o.cfg.Window < 1 || o.cfg.Window > maxWindow:
		return fmt.Errorf("--window %d is out of range: want 1..%d", o.cfg.Window, maxWindow)
	case o.cfg.Iterations < 1 || o.cfg.Iterations > benchmarks.MaxIterations:
		return fmt.Errorf("--iterations %d is out of range: want 1..%d", o.cfg.Iterations, uint64(benchmarks.MaxIterations))
	case o.cfg.Warmup > benchmarks.MaxIterations:
		return fmt.Errorf("--warmup %d is out of range: want 0..%d", o.cfg.Warmup, uint64(benchmarks.MaxIterations))
	case o.cfg.Timeout <= 0:
		return fmt.Errorf("--timeout %v: want more than 0s", o.cfg.Timeout)
	case o.cfg.Core < -1 || o.cfg.Core > maxCore:
		return fmt.Errorf("--core %d is out of range: want -1 (as --pin says) or a CPU, 0..%d", o.cfg.Core, maxCore)
	case o.cfg.Slots < 1 || o.cfg.Slots > 64 || o.cfg.Slots&(o.cfg.Slots-1) != 0:
		return fmt.Errorf("--slots %d: want a power of two, 1..64", o.cfg.Slots)
	case o.cfg.Duration < 0:
		return fmt.Errorf("--duration %v: want 0 (off) or more", o.cfg.Duration)
	case o.cfg.NICs == "":
		// An empty list would let the provider pick any interface (tcp: eth0).
		return errors.New("--nic is empty: name NICs (nic0,nic1), a pattern (nic*), or auto")
	case !(o.linkGbps >= 0 && o.linkGbps <= 1e6): // NaN too
		return fmt.Errorf("--link-gbps %v is out of range: want 0 (the provider's speed) up to 1e6", o.linkGbps)
	case o.cfg.Chunk > benchmarks.MaxSize:
		// Past it a plan's op count, (size + chunk - 1) / chunk, wraps to 0.
		return fmt.Errorf("--chunk %d is out of range: want 0 (the benchmark's default) up to %d (1 TiB)", o.cfg.Chunk, uint64(benchmarks.MaxSize))
	}
	return nil
}

// gpuFlags reads the flags of the GPU benchmarks into the config.
func (o *options) gpuFlags(launch, cells, mode, producer string) error {
	o.cfg.Grid, o.cfg.Block = -1, 512
	if launch != "auto" {
		// As the sweeps' launch key: GRID of at most 7 digits and BLOCK
		// at most CUDA's 1024 threads, both reaching C as 32-bit numbers.
		m := launchForm.FindStringSubmatch(launch)
		if m == nil {
			return fmt.Errorf("--launch %q: want auto or GRIDxBLOCK, GRID 1..9999999 and BLOCK 1..1024", launch)
		}
		o.cfg.Grid, _ = strconv.Atoi(m[1])
		o.cfg.Block, _ = strconv.Atoi(m[2])
		if o.cfg.Block > 1024 {
			return fmt.Errorf("--launch %q: %d threads a block, CUDA allows at most 1024", launch, o.cfg.Block)
		}
	}
	switch cells {
	case "pinned", "host":
		o.cfg.Cells = native.CellsPinned
	case "managed":
		o.cfg.Cells = native.CellsManaged
	case "device":
		o.cfg.Cells = native.CellsDevice
	default:
		return fmt.Errorf("--cells %q: want pinned, managed, device or host", cells)
	}
	if mode != "nbi" && mode != "blocking" {
		return fmt.Errorf("--mode %q: want nbi or blocking", mode)
	}
	if producer != "gpu" && producer != "cpu" {
		return fmt.Errorf("--producer %q: want gpu or cpu", producer)
	}
	o.cfg.Blocking, o.cfg.CPUProducer = mode == "blocking", producer == "cpu"
	if o.cfg.Producers < 1 || o.cfg.Producers > maxProducers {
		return fmt.Errorf("--producers %d is out of range: want 1..%d", o.cfg.Producers, maxProducers)
	}
	return nil
}

func parseSizes(s string) ([]uint64, error) {
	if s == "" {
		return nil, errors.New("--sizes is required")
	}
	var sizes []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("--sizes: %q is not a positive byte count", f)
		}
		if n > benchmarks.MaxSize {
			return nil, fmt.Errorf("--sizes: %d is out of range: want at most %d (1 TiB)", n, uint64(benchmarks.MaxSize))
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func maxOf(v []uint64) uint64 {
	var m uint64
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
