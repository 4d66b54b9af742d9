package nccltests

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"efaxx/results"
	"efaxx/results/record"
)

// Placements of a measurement, the placement parameter of imported runs.
const (
	OutOfPlace = "out-of-place"
	InPlace    = "in-place"
)

// Import says how to turn a Result into runs.
type Import struct {
	File       string    // the file, for names and messages
	Text       []byte    // its bytes, hashed into the runs' uids and stored as provenance
	Collective string    // overrides the file's collective ("all_reduce"); "" keeps it
	Start      time.Time // when the test ran, when the file does not say (the text form)
}

// Runs returns the runs of r to store: one per element type, reduction,
// root and placement, with one sample per message size. A sample stands
// for all ranks (rank and peer -1): nccl-tests prints one number per size,
// averaged over ranks. It moves size bytes per operation, so efaxx's gbps
// is 8 x nccl-tests' algbw; lat_*_ns hold the per-iteration times when the
// file has them (-R), else the mean operation time in each.
func (r *Result) Runs(in Import) ([]*results.ImportedRun, error) {
	coll := in.Collective
	if coll == "" {
		coll = r.Collective()
	}
	if coll == "" {
		return nil, &LineError{File: in.File, Msg: `which collective? the file has no "# Collective test starting:" line: name it (--collective all_reduce)`}
	}
	sum := sha256.Sum256(in.Text)
	hash := hex.EncodeToString(sum[:])
	start := r.startTime(in.Start)
	var runs []*results.ImportedRun
	for _, g := range r.groups() {
		for _, placement := range []string{OutOfPlace, InPlace} {
			run, err := r.run(in, coll, hash, start, g, placement)
			if err != nil {
				return nil, err
			}
			if run != nil {
				runs = append(runs, run)
			}
		}
	}
	return runs, nil
}

// startTime returns when the test started: the JSON's start_time, read
// as local time as nccl-tests writes it, or fallback.
func (r *Result) startTime(fallback time.Time) time.Time {
	if t, err := time.ParseInLocation("2006-01-02 15:04:05", r.Start, time.Local); err == nil {
		return t
	}
	return fallback
}

// group is the rows of one element type, reduction and root.
type group struct {
	typ, redop string
	root       int
	rows       []Row
}

// groups splits the rows by type, reduction and root, in file order: a
// file of -d all or -o all holds several tables.
func (r *Result) groups() []*group {
	var out []*group
	index := map[string]*group{}
	for _, row := range r.Rows {
		key := fmt.Sprint(row.Type, "/", row.Redop, "/", row.Root)
		g := index[key]
		if g == nil {
			g = &group{typ: row.Type, redop: row.Redop, root: row.Root}
			index[key] = g
			out = append(out, g)
		}
		g.rows = append(g.rows, row)
	}
	return out
}

// run returns the run of one group and placement, or nil when the test
// did not measure that placement.
func (r *Result) run(in Import, coll, hash string, start time.Time, g *group, placement string) (*results.ImportedRun, error) {
	params := map[string]any{"placement": placement, "type": g.typ, "redop": g.redop, "root": g.root,
		"ranks": len(r.Devices), "iterations": r.Iterations}
	benchmark := "nccl:" + coll
	run := &results.ImportedRun{
		UID:       fmt.Sprintf("nccl-tests-%s-%s-%s-%s-%d", hash[:16], placement, g.typ, g.redop, g.root),
		Sweep:     strings.TrimSuffix(filepath.Base(in.File), filepath.Ext(in.File)),
		SweepHash: "nccl-tests-" + hash, Spec: string(in.Text), Point: pointHash(benchmark, params),
		Benchmark: benchmark, Params: params, Executor: "nccl-tests", Command: r.Args,
		StartNs: start.UnixNano(), Status: record.StatusOK, File: in.File,
		Ranks: r.ranks(benchmark), Fingerprint: r.fingerprint(),
	}
	for _, row := range g.rows {
		m := row.OutOfPlace
		if placement == InPlace {
			m = row.InPlace
		}
		if m == nil {
			continue
		}
		s, err := r.sample(in.File, row, m)
		if err != nil {
			return nil, err
		}
		run.Samples = append(run.Samples, s)
		if m.Wrong != nil && *m.Wrong > 0 && run.Status == record.StatusOK {
			run.Status = record.StatusFailed
			run.Reason = fmt.Sprintf("nccl-tests data check: %g wrong elements at size %d", *m.Wrong, row.Size)
		}
	}
	if len(run.Samples) == 0 {
		return nil, nil
	}
	return run, nil
}

// sample converts the measurement m of row, checking that its algbw is
// its size over its time, which a misread column would break.
func (r *Result) sample(file string, row Row, m *Measure) (record.Sample, error) {
	iters := row.Iterations
	if iters == 0 {
		iters = max(r.Iterations, 1)
	}
	alg := float64(row.Size) / 1e3 / m.TimeUs // GB/s from bytes and us
	if math.Abs(alg-m.AlgBw) > 0.01+0.05*m.AlgBw {
		return record.Sample{}, &LineError{File: file, Line: row.Line,
			Msg: fmt.Sprintf("size %d: algbw %g GB/s, but size over time is %.4g GB/s: a column is misread", row.Size, m.AlgBw, alg)}
	}
	mean := nsOf(m.TimeUs)
	lat := record.Lat{Min: mean, P50: mean, P99: mean, Max: mean}
	if m.Min != nil && m.Max != nil && m.P99 != nil {
		lat.Min, lat.Max, lat.P99 = nsOf(*m.Min), nsOf(*m.Max), nsOf(*m.P99)
	}
	if m.P50 != nil {
		lat.P50 = nsOf(*m.P50)
	}
	return record.Sample{Type: record.TypeSample, Rank: -1, Peer: -1, Role: "all", Size: row.Size,
		BytesSent: row.Size, Iterations: uint64(iters), ElapsedNs: uint64(math.Round(m.TimeUs * 1e3 * float64(iters))),
		Lat: lat}, nil
}

// nsOf converts us to ns, rounded, at least 1.
func nsOf(us float64) uint64 { return uint64(math.Max(1, math.Round(us*1e3))) }

// ranks returns one fingerprint per device line.
func (r *Result) ranks(benchmark string) []record.Rank {
	out := make([]record.Rank, len(r.Devices))
	for i, d := range r.Devices {
		out[i] = record.Rank{Type: record.TypeRank, Rank: d.Rank, World: len(r.Devices), LocalRank: d.Device,
			Host: d.Host, PID: d.Pid, Benchmark: benchmark, Version: r.Version}
	}
	return out
}

// fingerprint is what the file says of the tool and the devices.
func (r *Result) fingerprint() map[string]any {
	devices := make([]map[string]any, len(r.Devices))
	for i, d := range r.Devices {
		devices[i] = map[string]any{"rank": d.Rank, "host": d.Host, "device": d.Device, "bus": d.Bus, "name": d.Name}
	}
	fp := map[string]any{"tool": "nccl-tests", "program": r.Program, "version": r.Version,
		"nccl_version": r.NCCLVersion, "devices": devices, "out_of_bounds": r.Wrong,
		"avg_bus_bandwidth_GBps": r.AvgBusBw, "busbw_over_algbw": r.busFactor()}
	if r.Iterations == 0 {
		fp["iterations_unknown"] = true
	}
	return fp
}

// busFactor returns busbw/algbw at the largest size, nccl-tests' factor
// for the collective and rank count (2(n-1)/n for all_reduce), rounded
// to 4 digits, or 0 without a row to read it from.
func (r *Result) busFactor() float64 {
	for i := len(r.Rows) - 1; i >= 0; i-- {
		for _, m := range []*Measure{r.Rows[i].OutOfPlace, r.Rows[i].InPlace} {
			if m != nil && m.AlgBw > 0 {
				return math.Round(m.BusBw/m.AlgBw*1e4) / 1e4
			}
		}
	}
	return 0
}

// pointHash is the content hash of a benchmark and its params.
func pointHash(benchmark string, params map[string]any) string {
	b, _ := json.Marshal(map[string]any{"benchmark": benchmark, "params": params}) // plain values always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
