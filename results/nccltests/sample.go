package nccltests

import (
	"fmt"
	"math"

	"efaxx/results/record"
)

// Placements of a measurement: the placement parameter of imported runs,
// and the variant of the samples of an external sweep's runs.
const (
	OutOfPlace = "out-of-place"
	InPlace    = "in-place"
)

// Group is the rows of one element type, reduction and root.
type Group struct {
	Type, Redop string
	Root        int
	Rows        []Row // one row per size, in file order
	// Repeated holds the rows whose size an earlier row of the group
	// already has. nccl-tests rounds each requested size down to a whole
	// number of elements per rank, so small sizes can collapse onto one:
	// all_gather_perf on 8 GPUs prints size 0 four times, for 8, 16, 32
	// and 64 bytes (recorded, testdata/h100_all_gather_8.txt). A run keeps
	// one sample per size, the first row's.
	Repeated []Row
}

// Groups splits the rows by type, reduction and root, in file order: a
// file of -d all or -o all holds several tables.
func (r *Result) Groups() []*Group {
	seen := map[*Group]map[uint64]bool{}
	var out []*Group
	index := map[string]*Group{}
	for _, row := range r.Rows {
		key := fmt.Sprint(row.Type, "/", row.Redop, "/", row.Root)
		g := index[key]
		if g == nil {
			g = &Group{Type: row.Type, Redop: row.Redop, Root: row.Root}
			index[key] = g
			out = append(out, g)
			seen[g] = map[uint64]bool{}
		}
		if seen[g][row.Size] {
			g.Repeated = append(g.Repeated, row)
			continue
		}
		seen[g][row.Size] = true
		g.Rows = append(g.Rows, row)
	}
	return out
}

// Measure returns the measurement of row in placement, nil when the test
// did not run it.
func (row *Row) Measure(placement string) *Measure {
	if placement == InPlace {
		return row.InPlace
	}
	return row.OutOfPlace
}

// Sample converts the measurement m of row into a sample that stands for
// all ranks (rank and peer -1), as nccl-tests prints one number per size,
// averaged over ranks. It moves size bytes per operation, so efaxx's gbps
// is 8 x nccl-tests' algbw; lat_*_ns hold the per-iteration times when
// the file has them (-R), else the mean operation time in each. Sample
// checks that algbw is size over time, which a misread column would break.
func (r *Result) Sample(file string, row Row, m *Measure) (record.Sample, error) {
	iters := row.Iterations
	if iters == 0 {
		iters = max(r.Iterations, 1)
	}
	alg := float64(row.Size) / 1e3 / m.TimeUs // GB/s from bytes and us
	if math.Abs(alg-m.AlgBw) > 0.01+0.05*m.AlgBw {
		return record.Sample{}, formatError(file, row.Line, "size %d: algbw %g GB/s, but size over time is %.4g GB/s: a column is misread", row.Size, m.AlgBw, alg)
	}
	elapsed := m.TimeUs * 1e3 * float64(iters)
	if elapsed >= 1<<62 {
		return record.Sample{}, formatError(file, row.Line, "size %d: %g us x %d iterations is out of range", row.Size, m.TimeUs, iters)
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
		BytesSent: row.Size, Iterations: uint64(iters), ElapsedNs: uint64(math.Max(1, math.Round(elapsed))),
		Lat: lat}, nil
}

// Units of the tool values of a measurement.
const (
	UnitGBps = "GB/s (1e9 B/s)"
	UnitUs   = "us"
)

// Values returns what nccl-tests printed for m, as tool values keyed like
// the sample of row, with variant variant.
func Values(row Row, m *Measure, variant string) []record.ToolValue {
	v := func(name string, x float64, unit string) record.ToolValue {
		return record.ToolValue{Size: row.Size, Rank: -1, Peer: -1, Variant: variant, Name: name, Value: x, Unit: unit}
	}
	out := []record.ToolValue{v("time", m.TimeUs, UnitUs), v("algbw", m.AlgBw, UnitGBps), v("busbw", m.BusBw, UnitGBps)}
	if m.Wrong != nil {
		out = append(out, v("wrong", *m.Wrong, "elements"))
	}
	return out
}

// nsOf converts us to ns, rounded, at least 1.
func nsOf(us float64) uint64 { return uint64(math.Max(1, math.Round(us*1e3))) }

// Ranks returns one fingerprint per device line. Its efaxx_version stays
// empty: efaxx did not run the test, and nccl-tests' version is the run's
// (Fingerprint).
func (r *Result) Ranks(benchmark string) []record.Rank {
	out := make([]record.Rank, len(r.Devices))
	for i, d := range r.Devices {
		out[i] = record.Rank{Type: record.TypeRank, Rank: d.Rank, World: len(r.Devices), LocalRank: d.Device,
			Host: d.Host, PID: d.Pid, Benchmark: benchmark}
	}
	return out
}

// Fingerprint is what the file says of the tool and the devices.
func (r *Result) Fingerprint() map[string]any {
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
	repeated := 0
	for _, g := range r.Groups() {
		repeated += len(g.Repeated)
	}
	if repeated > 0 {
		fp["repeated_size_rows"] = repeated // rows left out: their size came before (Group)
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
