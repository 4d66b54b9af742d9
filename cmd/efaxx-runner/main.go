// Command efaxx-runner is one rank of an efaxx measurement. mpirun or
// srun --mpi=pmix starts one per rank; each writes its own NDJSON file
// (results/record) into --out: a fingerprint, one sample per message size
// and peer, and an end record with the status.
//
// It is started by efaxx, not by hand; its flags mirror a sweep point.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"efaxx/native"
	"efaxx/results/record"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

type options struct {
	cfg   native.Config
	sizes []uint64
	out   string
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	opts, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner:", err)
		return 2
	}
	proc, err := native.Init()
	if err != nil {
		fmt.Fprintln(os.Stderr, "efaxx-runner:", err)
		return 1
	}
	if err := measure(proc, opts); err != nil {
		in := proc.Info()
		fmt.Fprintf(os.Stderr, "efaxx-runner: rank %d on %s: %v\n", in.Rank, in.Host, err)
		proc.Abort(1) // a failed rank must not leave its peers waiting; does not return
		return 1
	}
	proc.Finalize()
	return 0
}

// measure runs every size and writes every record. Whatever happens, the
// records written before a failure stay on disk, one complete line each.
func measure(proc *native.Process, opts options) error {
	start := time.Now()
	w, err := createRankFile(opts.out, proc.Info().Rank)
	if err != nil {
		return err
	}
	defer w.Close()
	runner, openErr := proc.Open(opts.cfg)
	if err := w.write(fingerprint(proc.Info(), opts.cfg.Benchmark, start)); err != nil {
		return err
	}
	if openErr == nil {
		defer runner.Close()
		openErr = measureSizes(runner, w, proc.Info().Rank, opts.sizes)
	}
	end := record.End{Type: record.TypeEnd, Rank: proc.Info().Rank, Status: record.StatusOK,
		ElapsedNs: uint64(time.Since(start).Nanoseconds())}
	if openErr != nil {
		end.Status, end.Error = record.StatusFailed, openErr.Error()
	}
	if err := w.write(end); err != nil {
		return err
	}
	if err := w.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.Name(), err)
	}
	return openErr
}

func measureSizes(runner *native.Runner, w rankFile, rank int, sizes []uint64) error {
	for _, size := range sizes {
		samples, err := runner.Run(size)
		for _, s := range samples {
			if werr := w.write(sampleRecord(rank, s)); werr != nil {
				return werr
			}
		}
		if err != nil {
			return fmt.Errorf("size %d: %w", size, err)
		}
	}
	return nil
}

func fingerprint(in native.Info, benchmark string, start time.Time) record.Rank {
	return record.Rank{
		Type: record.TypeRank, Rank: in.Rank, World: in.World, LocalRank: in.LocalRank, LocalSize: in.LocalSize,
		Host: in.Host, PID: os.Getpid(), Benchmark: benchmark,
		Provider: in.Provider, Fabric: in.Fabric, Domain: in.Domain, MRMode: in.MRMode, LinkBps: in.LinkBps,
		Libfabric: in.Libfabric, MPI: in.MPI, GPU: in.GPU, Version: version, Commit: commit, StartNs: start.UnixNano(),
	}
}

func sampleRecord(rank int, s native.Sample) record.Sample {
	role := "target"
	if s.Initiator {
		role = "initiator"
	}
	return record.Sample{
		Type: record.TypeSample, Rank: rank, Peer: s.Peer, Role: role, Size: s.Size, Variant: s.Variant,
		BytesSent: s.BytesSent, BytesRecv: s.BytesRecv, Iterations: s.Iterations, ElapsedNs: s.ElapsedNs,
		Lat: record.Lat{Min: s.LatMin, P50: s.LatP50, P99: s.LatP99, Max: s.LatMax},
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	var sizes string
	fs := flag.NewFlagSet("efaxx-runner", flag.ContinueOnError)
	fs.StringVar(&o.cfg.Benchmark, "benchmark", "", "sendrecv or write")
	fs.StringVar(&o.cfg.Provider, "provider", "auto", "libfabric provider: auto, shm, tcp, efa, ...")
	fs.StringVar(&o.cfg.NIC, "nic", "", "libfabric domain to use (e.g. lo); empty: the provider's choice")
	fs.StringVar(&sizes, "sizes", "", "comma-separated message sizes in bytes")
	fs.Uint64Var(&o.cfg.Iterations, "iterations", 100, "timed iterations per size and peer")
	fs.Uint64Var(&o.cfg.Warmup, "warmup", 10, "untimed iterations before them")
	fs.DurationVar(&o.cfg.Timeout, "timeout", time.Minute, "longest wait without progress")
	fs.Uint64Var(&o.cfg.Chunk, "chunk", 1<<20, "bytes per fabric operation")
	fs.IntVar(&o.cfg.Window, "window", 16, "operations in flight")
	fs.StringVar(&o.out, "out", ".", "directory for this rank's NDJSON file")
	fs.IntVar(&o.cfg.Core, "core", -1, "CPU to pin the measuring thread to; -1: not pinned")
	launch := fs.String("launch", "auto", "ipc: copy kernel GRIDxBLOCK, or auto (every SM full)")
	direction := fs.String("direction", "push", "ipc: push (rank 0's GPU writes) or pull (the peer's GPU reads)")
	cells := fs.String("cells", "pinned", "queue: where the cells live: pinned, managed, device, host")
	mode := fs.String("mode", "nbi", "queue: nbi (one wait at the end) or blocking (a wait per command)")
	producer := fs.String("producer", "gpu", "queue: gpu, or cpu (the ring with no GPU)")
	fs.IntVar(&o.cfg.Producers, "producers", 1, "queue: threads pushing commands")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return o, err
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
	if *direction != "push" && *direction != "pull" {
		return o, fmt.Errorf("--direction %q: want push or pull", *direction)
	}
	o.cfg.Pull = *direction == "pull"
	o.cfg.MaxSize = maxOf(o.sizes)
	if s := os.Getenv("EFAXX_TEST_CORRUPT_SIZE"); s != "" {
		if o.cfg.CorruptSize, err = strconv.ParseUint(s, 10, 64); err != nil {
			return o, fmt.Errorf("EFAXX_TEST_CORRUPT_SIZE=%q: %w", s, err)
		}
	}
	switch {
	case o.cfg.Benchmark == "":
		return o, errors.New("--benchmark is required")
	case o.cfg.Window < 1 || o.cfg.Chunk < 1 || o.cfg.Iterations < 1 || o.cfg.Timeout <= 0:
		return o, errors.New("--window, --chunk, --iterations and --timeout must be positive")
	}
	return o, nil
}

// gpuFlags reads the flags of the GPU benchmarks into the config.
func (o *options) gpuFlags(launch, cells, mode, producer string) error {
	o.cfg.Grid, o.cfg.Block = -1, 512
	if launch != "auto" {
		if _, err := fmt.Sscanf(launch, "%dx%d", &o.cfg.Grid, &o.cfg.Block); err != nil || o.cfg.Grid < 1 || o.cfg.Block < 1 {
			return fmt.Errorf("--launch %q: want auto or GRIDxBLOCK", launch)
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
	if o.cfg.Producers < 1 {
		return fmt.Errorf("--producers %d: want at least 1", o.cfg.Producers)
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
