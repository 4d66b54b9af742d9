package results

import (
	"slices"
	"strings"

	"efaxx/benchmarks"
)

// A Unit is how a benchmark's numbers are read: the metric that is its
// headline, and the variant of the same run that each of its samples is
// judged against (its floor or reference, measured in the same run), so
// that show and query print a queue in commands per second and an NVLink
// copy in GB/s, each beside what it should be compared with.
type Unit struct {
	Metric    string `json:"metric"`    // a metric of metrics: gbps, dir_gbs, mops
	Reference string `json:"reference"` // the variant a sample is divided by; "" for none
}

// toolUnits are the imported tools whose numbers are not a network's
// (Gbps): efaxx's own benchmarks say theirs in the benchmark table.
var toolUnits = map[string]Unit{
	"nvbandwidth:nvbandwidth": {Metric: "dir_gbs"}, // NVIDIA's nvbandwidth: GB/s as it prints
}

// UnitOf returns the unit of a benchmark's numbers: the benchmark table's
// for efaxx's own, nccl-tests' busbw (GB/s, as it printed it) for its
// collectives, Gbps with no reference for other tools unless said. An
// nccl-tests sample counts size bytes per operation, what algbw counts,
// so its Gbps (8 x algbw) is not what any rank sent and received.
func UnitOf(benchmark string) Unit {
	if b, err := benchmarks.Lookup(benchmark); err == nil {
		u := Unit{Metric: b.Metric, Reference: b.Reference}
		if u.Metric == "" {
			u.Metric = "gbps"
		}
		return u
	}
	if u, ok := toolUnits[benchmark]; ok {
		return u
	}
	if strings.HasPrefix(benchmark, "nccl:") {
		return Unit{Metric: "busbw"}
	}
	return Unit{Metric: "gbps"}
}

// IsReference reports whether a sample variant of benchmark's runs is
// one of the references a run measures beside the benchmark itself: the
// benchmark's Reference (the queue's floor, ipc's memcpy, proxy's cpu),
// and for a network benchmark on GPU memory both copies rank 0 times,
// cudaMemcpy and staged (native/cuda.c).
func IsReference(benchmark, variant string) bool {
	return variant != "" && slices.Contains(References(benchmark), variant)
}

// References returns the variants IsReference reports for benchmark.
func References(benchmark string) []string {
	switch ref := UnitOf(benchmark).Reference; ref {
	case "":
		return nil
	case "cudaMemcpy":
		return []string{ref, "staged"}
	default:
		return []string{ref}
	}
}
