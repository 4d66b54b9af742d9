// Package synth writes synthetic run directories: a run.json and one NDJSON
// file per rank, in the exact format efaxx-runner and the executors write,
// with numbers drawn from a stated model. Tests use it to plant a known
// regression or a slow rank; benchmarks use it to make large runs without a
// cluster. Nothing in it is a measurement.
package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"efaxx/results/record"
)

// Run describes one synthetic run. Bandwidth follows a simple link model:
// a message of size bytes takes Latency + 8·size/LinkGbps per iteration,
// and each rank's time is scaled by its own random factor (Noise) and by
// Slow. The zero value of every field but Ranks and Sizes has a default.
type Run struct {
	UID       string         // run.json uid; "synth-<Seed>" when empty
	Sweep     string         // sweep name; "synth" when empty
	Benchmark string         // "write" when empty
	Params    map[string]any // the point's parameters; {"provider": "shm"} when nil
	Tags      map[string]string
	Ranks     int      // number of ranks, at least 1
	PerHost   int      // ranks per host; 8 when 0
	Sizes     []uint64 // message sizes in bytes
	Iters     uint64   // timed iterations per size; 100 when 0
	StartNs   int64    // launch time; 1.7e18 (November 2023) when 0
	Seed      uint64   // seeds the noise; runs with equal seeds are equal

	LinkGbps float64         // link rate; 100 when 0
	Latency  float64         // fixed cost per iteration in ns; 5000 when 0
	Noise    float64         // relative standard deviation of each rank's time; 0 for none
	Offset   float64         // the whole run's factor on every time (1.05: 5% slower throughout); 1 when 0
	Slow     map[int]float64 // rank → factor on its time (1.25: 25% slower)

	// SlowSizes limits Slow to these sizes; nil applies it at every size.
	SlowSizes map[uint64]bool

	// Spec, when set, is written as sweep.toml beside the run directory
	// and named by the manifest, as a session holds its sweep's text.
	Spec string

	// Rails, when more than 0, puts rank r's samples on rail r mod Rails
	// alone, as a single-rail strategy per rank would; SlowRail, when
	// set, is the factor on the time of the samples of rail 0.
	Rails    int
	SlowRail float64

	// Fail, when set, is the error of rank 0's end record: the run is
	// stored failed, with this reason.
	Fail string

	// Fingerprint, when set, changes each rank's fingerprint record.
	Fingerprint func(rank int, fp *record.Rank)

	// Samples, when set, gives rank's samples at size in place of the
	// link model's one: a run whose samples a test states itself (every
	// pair of a node's GPUs, an all-to-all). Type, Rank and Size are set.
	Samples func(rank int, size uint64) []record.Sample
}

// Write writes the run into dir, creating it, and returns the directory.
// The manifest says the launcher exited 0 and every rank ends ok.
func (r *Run) Write(dir string) error {
	r.defaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("synth run %q: %w", dir, err)
	}
	m := r.manifest()
	if r.Spec != "" {
		m.SweepFile, m.SweepHash = "../sweep.toml", fmt.Sprintf("synth-%x", hashOf(map[string]any{"spec": r.Spec}))
		if err := os.WriteFile(filepath.Join(dir, "..", "sweep.toml"), []byte(r.Spec), 0o644); err != nil {
			return fmt.Errorf("synth run %q: %w", dir, err)
		}
	}
	if err := writeJSON(filepath.Join(dir, record.ManifestName), m); err != nil {
		return fmt.Errorf("synth run %q: %w", dir, err)
	}
	rng := rand.New(rand.NewPCG(r.Seed, 0x5eed))
	for rank := range r.Ranks {
		if err := r.writeRank(filepath.Join(dir, record.RankFile(rank)), rank, rng); err != nil {
			return fmt.Errorf("synth run %q: %w", dir, err)
		}
	}
	return nil
}

// defaults fills the zero fields.
func (r *Run) defaults() {
	if r.Seed == 0 && r.UID == "" {
		r.Seed = 1
	}
	set := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	set(&r.UID, fmt.Sprintf("synth-%d", r.Seed))
	set(&r.Sweep, "synth")
	set(&r.Benchmark, "write")
	if r.Params == nil {
		r.Params = map[string]any{"provider": "shm"}
	}
	r.PerHost = cmpOr(r.PerHost, 8)
	r.Iters = cmpOr(r.Iters, 100)
	r.StartNs = cmpOr(r.StartNs, 1_700_000_000_000_000_000)
	r.LinkGbps = cmpOr(r.LinkGbps, 100)
	r.Latency = cmpOr(r.Latency, 5000)
}

// cmpOr returns v, or def when v is zero.
func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// manifest returns the run.json of r.
func (r *Run) manifest() *record.Manifest {
	zero := 0
	point := fmt.Sprintf("%s-%x", r.Benchmark, hashOf(r.Params))
	return &record.Manifest{
		UID: r.UID, Sweep: r.Sweep, SweepHash: "synth-" + r.Sweep, Point: point,
		Benchmark: r.Benchmark, Params: r.Params, Sizes: r.Sizes, Ranks: r.Ranks,
		Executor: "synth", Command: []string{"synth"}, StartNs: r.StartNs,
		EndNs: r.StartNs + 60e9, ExitCode: &zero, Tags: r.Tags,
	}
}

// hashOf returns a stable number for the parameters, for point hashes.
func hashOf(params map[string]any) uint64 {
	b, _ := json.Marshal(params) // sorted keys; values are plain
	var h uint64 = 14695981039346656037
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

// writeRank writes the file of one rank.
func (r *Run) writeRank(path string, rank int, rng *rand.Rand) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	enc := json.NewEncoder(w)
	err = enc.Encode(r.fingerprint(rank))
	for _, size := range r.Sizes {
		samples := []record.Sample{r.sample(rank, size, rng)}
		if r.Samples != nil {
			samples = r.Samples(rank, size)
		}
		for _, s := range samples {
			s.Type, s.Rank, s.Size = record.TypeSample, rank, size
			if err == nil {
				err = enc.Encode(s)
			}
		}
	}
	if err == nil {
		end := record.End{Type: record.TypeEnd, Rank: rank, Status: record.StatusOK, ElapsedNs: 5e9}
		if rank == 0 && r.Fail != "" {
			end.Status, end.Error = record.StatusFailed, r.Fail
		}
		err = enc.Encode(end)
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fingerprint returns the rank record of rank.
func (r *Run) fingerprint(rank int) record.Rank {
	fp := record.Rank{
		Type: record.TypeRank, Rank: rank, World: r.Ranks, LocalRank: rank % r.PerHost,
		LocalSize: r.PerHost, Host: fmt.Sprintf("node%04d", rank/r.PerHost), PID: 1000 + rank,
		Benchmark: r.Benchmark, Provider: "shm", Fabric: "shm", Domain: "shm",
		Libfabric: "1.17.0", MPI: "Open MPI v4.1.4", Version: "synth", Commit: "synth",
		StartNs: r.StartNs,
	}
	if r.Fingerprint != nil {
		r.Fingerprint(rank, &fp)
	}
	return fp
}

// sample draws rank's sample of size: one iteration takes the model's time
// times the rank's factor; the percentiles spread around it.
func (r *Run) sample(rank int, size uint64, rng *rand.Rand) record.Sample {
	iter := r.Latency + 8*float64(size)/r.LinkGbps
	factor := math.Max(0.05, 1+r.Noise*rng.NormFloat64()) * cmpOr(r.Offset, 1)
	if f, ok := r.Slow[rank]; ok && (r.SlowSizes == nil || r.SlowSizes[size]) {
		factor *= f
	}
	var rails []int
	if r.Rails > 0 {
		rails = []int{rank % r.Rails}
		if rails[0] == 0 && r.SlowRail > 0 {
			factor *= r.SlowRail
		}
	}
	iter *= factor
	peer := (rank + 1) % r.Ranks
	if r.Ranks == 1 {
		peer = -1 // no other rank, as the runner writes it (queue)
	}
	s := record.Sample{Rails: rails,
		Type: record.TypeSample, Rank: rank, Peer: peer, Role: "target",
		Size: size, BytesRecv: size, Iterations: r.Iters,
		ElapsedNs: uint64(math.Round(iter * float64(r.Iters))),
		Lat:       record.Lat{Min: ns(iter * 0.97), P50: ns(iter), P99: ns(iter * 1.05), Max: ns(iter * 1.2)},
	}
	if rank%2 == 0 {
		s.Role, s.BytesSent, s.BytesRecv = "initiator", size, 0
	}
	return s
}

// ns rounds a time in ns, never below 1.
func ns(t float64) uint64 { return uint64(math.Max(1, math.Round(t))) }

// writeJSON writes v to path as indented JSON.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// QueueSamples are the samples of a queue run at 64 B whose ring takes
// ring ns a command and whose floor (the same pops with no GPU) 300 ns:
// the benchmark's two variants, for Run.Samples.
func QueueSamples(ring uint64) func(rank int, size uint64) []record.Sample {
	return func(int, uint64) []record.Sample {
		return []record.Sample{
			{Peer: -1, Role: "initiator", Variant: "ring", BytesSent: 64, Iterations: 1000, ElapsedNs: 1000 * ring,
				Lat: record.Lat{Min: ring, P50: ring, P99: ring, Max: ring}},
			{Peer: -1, Role: "initiator", Variant: "floor", BytesSent: 64, Iterations: 1000, ElapsedNs: 300_000,
				Lat: record.Lat{Min: 300, P50: 300, P99: 300, Max: 300}},
		}
	}
}
