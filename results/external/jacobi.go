package external

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"efaxx/results/record"
)

// The Jacobi solvers of NVIDIA's multi-gpu-programming-models (mpi, nccl,
// nccl_overlap, nccl_graphs, nvshmem, ...) print from rank 0 the serial
// reference run, the parallel run, and one result line:
//
//	Single GPU jacobi relaxation: 1000 iterations on 16384 x 16384 mesh with norm check every 100 iterations
//	    0, 22.626005
//	Jacobi relaxation: 1000 iterations on 16384 x 16384 mesh with norm check every 100 iterations
//	    0, 22.626005
//	Num GPUs: 16.
//	16384x16384: 1 GPU: 472.1434 s, 16 GPUs:  31.5063 s, speedup:    14.98, efficiency:    93.64
//
// speedup is the single-GPU time over the parallel time; efficiency is
// speedup / GPUs in percent.

var (
	jacobiResult = regexp.MustCompile(`^(\d+)x(\d+): 1 GPU:\s*(\S+) s, (\d+) GPUs:\s*(\S+) s, speedup:\s*(\S+), efficiency:\s*(\S+?)\s*%?\s*$`)
	jacobiRun    = regexp.MustCompile(`^(Single GPU j|J)acobi relaxation: (\d+) iterations on (\d+) x (\d+) mesh`)
	jacobiNoise  = []*regexp.Regexp{
		regexp.MustCompile(`^\d+, [-+0-9.eE]+$`), // the l2 norm every nccheck iterations
		regexp.MustCompile(`^Num GPUs: \d+(\.| with a \(\d+,\d+\) layout\.)$`),
		regexp.MustCompile(`^1 GPU: single kernel execution took `),
		regexp.MustCompile(`^MPI time: `),
	}
)

// parseJacobi reads the output of a multi-gpu-programming-models Jacobi
// solver. Its one sample stands for the whole solve: size is the mesh's
// points (nx x ny), iterations the parallel run's, elapsed its time; the
// tool values are the single-GPU time, the parallel time, the speedup and
// the efficiency as printed.
func parseJacobi(in Input) (*Result, error) {
	s := &sink{}
	res := &Result{}
	iters := 0
	for _, f := range in.Files {
		ls, cut := lines(f.Data)
		if cut {
			s.fail(f.Name, len(ls), "the last line has no end: the output was cut short")
		}
		for i, l := range ls {
			t := strings.TrimSpace(l)
			if m := jacobiRun.FindStringSubmatch(t); m != nil {
				if m[1] == "J" {
					iters, _ = strconv.Atoi(m[2])
				}
				continue
			}
			if m := jacobiResult.FindStringSubmatch(t); m != nil {
				jacobiAdd(s, res, f, i+1, m, iters)
				continue
			}
			if t == "" || logLine.MatchString(t) || matchAny(jacobiNoise, t) {
				continue
			}
			s.unknown(f.Name, i+1, t)
		}
	}
	res.Problems = s.problems
	res.Fingerprint = map[string]any{"tool": "multi-gpu-programming-models jacobi", "iterations": iters,
		"units": map[string]string{"serial_time": "s, one GPU", "time": "s, all GPUs", "speedup": "x",
			"efficiency": "%: speedup / GPUs"}}
	return res, s.err()
}

// jacobiAdd stores the result line m, at line n of f.
func jacobiAdd(s *sink, res *Result, f File, n int, m []string, iters int) {
	ny, _ := strconv.ParseUint(m[1], 10, 32)
	nx, _ := strconv.ParseUint(m[2], 10, 32)
	gpus, _ := strconv.Atoi(m[4])
	var v [4]float64
	for i, str := range []string{m[3], m[5], m[6], m[7]} {
		x, ok := number(str)
		if !ok {
			s.fail(f.Name, n, "%q: not a number of at least 0", str)
			return
		}
		v[i] = x
	}
	serial, par, speedup, eff := v[0], v[1], v[2], v[3]
	if par <= 0 || !timeOK(par*1e9) || gpus < 1 || nx*ny == 0 ||
		math.Abs(speedup-serial/par) > 0.01+0.01*speedup || math.Abs(eff-speedup/float64(gpus)*100) > 0.01+0.01*eff {
		s.fail(f.Name, n, "speedup %g or efficiency %g%% do not follow from %g s, %g s and %d GPUs: a field is misread",
			speedup, eff, serial, par, gpus)
		return
	}
	it := max(iters, 1)
	ns := par * 1e9
	smp := record.Sample{Type: record.TypeSample, Rank: -1, Peer: -1, Role: "all", Size: nx * ny,
		Iterations: uint64(it), ElapsedNs: uint64(math.Round(ns)), Lat: latOf(ns/float64(it), ns/float64(it), ns/float64(it))}
	res.Samples = append(res.Samples, smp)
	for _, tv := range []struct {
		name string
		v    float64
		unit string
	}{{"serial_time", serial, "s"}, {"time", par, "s"}, {"speedup", speedup, "x"}, {"efficiency", eff, "%"},
		{"gpus", float64(gpus), "count"}} {
		res.Values = append(res.Values, record.ToolValue{Size: smp.Size, Rank: -1, Peer: -1, Name: tv.name, Value: tv.v, Unit: tv.unit})
	}
}

// matchAny reports whether any of res matches t.
func matchAny(res []*regexp.Regexp, t string) bool {
	for _, re := range res {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}
