package results

// A Unit is how a benchmark's numbers are read: the metric that is its
// headline, and the variant of the same run that each of its samples is
// judged against (its floor or reference, measured in the same run), so
// that show and query print a queue in commands per second and an NVLink
// copy in GB/s, each beside what it should be compared with.
type Unit struct {
	Metric    string `json:"metric"`    // a metric of metrics: gbps, dir_gbs, mops
	Reference string `json:"reference"` // the variant a sample is divided by; "" for none
}

// units are the benchmarks whose unit is not a network's (Gbps, no
// reference) alone: GPU paths in GB/s, the queue in commands per second,
// and the references some runs measure beside them.
var units = map[string]Unit{
	"ipc":   {Metric: "dir_gbs", Reference: "memcpy"}, // the copy kernel against the copy engines
	"queue": {Metric: "mops", Reference: "floor"},     // the ring against its bare floor
	"proxy": {Metric: "gbps", Reference: "cpu"},       // GPU-initiated writes against the CPU's own
	// On GPU memory (memory = "device"), rank 0 measures cudaMemcpy of the
	// same bytes in the same run; on host memory there is no reference.
	"nvbandwidth:nvbandwidth": {Metric: "dir_gbs"}, // NVIDIA's nvbandwidth, imported: GB/s as it prints
	"write":                   {Metric: "gbps", Reference: "cudaMemcpy"},
	"sendrecv":                {Metric: "gbps", Reference: "cudaMemcpy"},
}

// UnitOf returns the unit of a benchmark's numbers: Gbps with no
// reference for the network benchmarks and external tools.
func UnitOf(benchmark string) Unit {
	if u, ok := units[benchmark]; ok {
		return u
	}
	return Unit{Metric: "gbps"}
}
