package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Point is one resolved combination of a sweep's axes: one benchmark, one
// value of every param, and the sizes the runner loops over inside the point.
type Point struct {
	Index      int           // position in the expansion, from 0
	Benchmark  string        // one of the sweep's benchmarks
	Provider   string        // libfabric provider: auto, shm, tcp or efa
	Ranks      int           // processes to launch
	Nodes      int           // nodes they spread over, evenly ([slurm] nodes)
	Sizes      []uint64      // message sizes in bytes, in the order the sweep gave
	Iterations int           // timed iterations per size
	Duration   time.Duration // > 0: the time each size's timed iterations fill instead (chosen per size); 0: off
	Warmup     int           // untimed iterations per size, before the timed ones
	Timeout    time.Duration // bound on every wait in the runner
	Chunk      uint64        // bytes per fabric operation
	Window     int           // operations in flight per rail
	Slots      int           // iterations a writer may run ahead of the target's verification
	Rails      int           // endpoints per rank, one per NIC
	Strategy   string        // how transfers spread over the rails
	NICs       string        // NICs for the rails: names, patterns or "auto"
	Pinning    string        // CPU pinning policy: numa or none
	Memory     string        // buffer memory: host
	LinkGbps   float64       // link speed per NIC for percent-of-link; 0: the provider's
	Launch     string        // ipc: the copy kernel's grid x block ("128x256"), or "auto"
	Direction  string        // ipc: push (the source's GPU writes), pull (the target's GPU reads) or bidir (both at once)
	Schedule   string        // ipc-all2all: at-once (a GPU's copies together) or shifted (one at a time, target rank+1 first)
	Cells      string        // queue: where the ring's cells live: pinned, managed, device, or host (cpu producers)
	Mode       string        // queue: nbi (one wait at the end) or blocking (a wait per command)
	Producer   string        // queue: gpu, or cpu (the ring's host build, no GPU needed)
	Producers  int           // queue: threads pushing commands
	Hash       string        // content hash of the resolved point: see Points

	// External is the program of an external point and its vars' values;
	// nil for efaxx-runner's own benchmarks.
	External *PointExternal

	// varying names the params that take several values in the sweep, in
	// table order; Label shows them. Nil for a point made by hand.
	varying []string
}

// count returns how many points s expands to, math.MaxInt when that is
// more than an int holds.
func (s *Sweep) count() int {
	n := 1
	for _, vals := range s.dims() {
		if len(vals) > 0 && n > math.MaxInt/len(vals) {
			return math.MaxInt
		}
		n *= len(vals)
	}
	return n
}

// Len returns how many points s expands to, without expanding it: a
// valid sweep has at most its max_points.
func (s *Sweep) Len() int { return s.count() }

// countText writes a count of count(), "more than 9223372036854775807"
// when it overflowed.
func countText(n int) string {
	if n == math.MaxInt {
		return fmt.Sprintf("more than %d", n)
	}
	return fmt.Sprint(n)
}

// axisSizes names each axis of more than one value with its length,
// outermost first: "benchmark 2", "ranks 400".
func (s *Sweep) axisSizes() []string {
	var out []string
	for i, p := range axes() {
		if n := len(s.values[i]); n > 1 {
			out = append(out, fmt.Sprintf("%s %d", p.name, n))
		}
	}
	if s.External != nil {
		for _, v := range s.External.Vars {
			if len(v.Values) > 1 {
				out = append(out, fmt.Sprintf("%s %d", v.Name, len(v.Values)))
			}
		}
	}
	return out
}

// dims returns the values of every axis, outermost first: the params of
// axes(), then the vars of an external sweep.
func (s *Sweep) dims() [][]any {
	if s.External == nil {
		return s.values
	}
	dims := append([][]any(nil), s.values...)
	for _, v := range s.External.Vars {
		dims = append(dims, v.Values)
	}
	return dims
}

// Points expands the sweep into its points: the cartesian product of the
// benchmarks and of every param given as a list. The benchmark is the
// outermost loop, then the params in the order of the params table
// (provider, ranks, nodes of [slurm], iterations, duration, warmup, ...,
// producers), then an external sweep's vars in file order; the last
// varies fastest. Sizes are never an axis: each point carries all of them.
//
// Point.Hash is the first 16 hex digits of the SHA-256 of the point's
// canonical JSON, {"benchmark":…,"params":…,"sizes":[…]} with params as
// Params returns them (keys sorted). It depends only on the resolved values,
// not on how the file spelled them.
func (s *Sweep) Points() []Point {
	points, _ := s.PointsContext(context.Background()) // never done: no error
	return points
}

// PointsContext is Points that stops when ctx is done, returning its
// error: a million points take seconds to expand.
func (s *Sweep) PointsContext(ctx context.Context) ([]Point, error) {
	all := axes()
	dims := s.dims()
	varying := s.varying()
	points := make([]Point, s.count())
	for i := range points {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := Point{Index: i, varying: varying}
		if s.External != nil {
			p.External = &PointExternal{spec: s.External, vars: map[string]any{}}
		}
		// i is a number whose digits, in the mixed radix of the axes'
		// lengths, pick one value of each axis; the last digit is the lowest.
		rest := i
		for a := len(dims) - 1; a >= 0; a-- {
			v := dims[a][rest%len(dims[a])]
			if a < len(all) {
				all[a].field.set(&p, v)
			} else {
				p.External.vars[s.External.Vars[a-len(all)].Name] = v
			}
			rest /= len(dims[a])
		}
		if s.ranksPerNode > 0 {
			p.Ranks = p.Nodes * s.ranksPerNode
		}
		p.Chunk = storedChunk(benchmark(p.Benchmark), p.Strategy, p.Memory, p.Chunk)
		p.Hash = p.hash()
		points[i] = p
	}
	return points, nil
}

// varying returns the names of the params, benchmark excluded, that take
// more than one value.
func (s *Sweep) varying() []string {
	var names []string
	for i, p := range axes() {
		if i > 0 && len(s.values[i]) > 1 {
			names = append(names, p.name)
		}
	}
	if s.External != nil {
		for _, v := range s.External.Vars {
			if len(v.Values) > 1 {
				names = append(names, v.Name)
			}
		}
	}
	return names
}

// Params returns the resolved params of p for storage, keyed by name:
// strings, ints, the timeout as a duration string ("60s") and the chunk as
// bytes. Sizes are left out; they are stored with each sample.
func (p Point) Params() map[string]any {
	m := make(map[string]any, len(params))
	for _, q := range params {
		if !q.inner && q.in(&p) {
			m[q.name] = jsonOf(q.field.get(&p))
		}
	}
	if p.External != nil {
		p.External.addParams(m)
	}
	return m
}

// Label returns a short name for p within its sweep: the benchmark (an
// external program's, as "nccl:alltoall"), then name=value for each param
// or var that varies in the sweep, as in "write provider=shm".
func (p Point) Label() string {
	var b strings.Builder
	b.WriteString(p.Tool())
	for _, name := range p.varying {
		for _, q := range params {
			if q.name == name && q.appliesTo(p.Benchmark) {
				b.WriteString(" " + name + "=" + labelOf(q.field.get(&p)))
			}
		}
		if p.External != nil {
			if v, ok := p.External.vars[name]; ok {
				b.WriteString(" " + name + "=" + labelOf(v))
			}
		}
	}
	return b.String()
}

// plainLabel is the form of a string a label shows bare.
var plainLabel = regexp.MustCompile(`^[A-Za-z0-9._:/+@%=,*\[\]-]+$`)

// labelOf writes a value for a label: plain strings bare, other strings
// quoted (a label goes on a line of a job script), the rest as textOf.
func labelOf(v any) string {
	switch v := v.(type) {
	case string:
		if plainLabel.MatchString(v) {
			return v
		}
		return strconv.Quote(v)
	case []string:
		words := make([]string, len(v))
		for i, w := range v {
			words[i] = labelOf(w)
		}
		return "[" + strings.Join(words, " ") + "]"
	}
	return textOf(v)
}

// RunnerArgs returns the arguments of efaxx-runner for p, after the program
// name: --benchmark, then a flag for each param the runner takes, in table
// order. Sizes and the chunk are in bytes, the timeout a duration string:
//
//	--benchmark write --provider shm --sizes 4096,8192 --iterations 200
//	--warmup 20 --timeout 60s --chunk 1048576 --window 16
//
// Ranks and nodes are not among them: the launcher (mpirun -np, srun -n
// -N) sets them.
//
// An external point's runner runs its program: its arguments are
// "external", and the program is in the run directory's external.json.
func (p Point) RunnerArgs() []string {
	if p.External != nil {
		return []string{"external"}
	}
	var args []string
	for _, q := range axes() {
		if q.flag != "" && q.in(&p) {
			args = append(args, q.flag, argOf(q.field.get(&p)))
		}
	}
	return args
}

// hash returns the content hash of p described at Points.
func (p Point) hash() string {
	canon := struct {
		Benchmark string         `json:"benchmark"`
		Params    map[string]any `json:"params"`
		Sizes     []uint64       `json:"sizes"`
	}{p.Benchmark, p.Params(), p.Sizes}
	// Marshal cannot fail on strings, numbers and maps with string keys,
	// and it sorts map keys, which makes the encoding canonical.
	b, _ := json.Marshal(canon)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
