package record

import "fmt"

// ExternalName is the file, in a run directory, that says which external
// program a run of an external sweep launched and how its output reads.
// The executor writes it before the launch; efaxx-runner's external mode
// reads it on every rank, and ingest reads it to parse the output.
const ExternalName = "external.json"

// External describes one run of an external program (nccl-tests, an
// NVSHMEM perftest, an OSU benchmark, a fabtest, a Jacobi solver).
type External struct {
	// Argv is the program and its arguments, every sweep parameter already
	// substituted: one element is one argument, passed without a shell.
	Argv []string `json:"argv"`

	// Env holds variables set for the program over the rank's own
	// environment; nil for none.
	Env map[string]string `json:"env,omitempty"`

	// Parser names the parser of the output: nccl-tests, nvshmem, osu,
	// fabtests or jacobi.
	Parser string `json:"parser"`

	// Output is the file, relative to the run directory, that the program
	// writes its results into (nccl-tests -J); "" when the results are on
	// every rank's standard output, captured into StdoutFile(rank).
	Output string `json:"output,omitempty"`

	// TimeoutNs bounds the program's run in nanoseconds: each rank's
	// wrapper stops its program (SIGTERM, then SIGKILL) when it is over.
	// 0 for no bound.
	TimeoutNs int64 `json:"timeout_ns,omitempty"`
}

// StdoutFile returns the file name of rank r's captured standard output.
func StdoutFile(r int) string { return fmt.Sprintf("rank-%05d.stdout", r) }

// StderrFile returns the file name of rank r's captured standard error.
func StderrFile(r int) string { return fmt.Sprintf("rank-%05d.stderr", r) }

// ToolValue is a number an external tool printed for one sample, kept as
// the tool defines it beside the sample's raw bytes and times: nccl-tests'
// algbw and busbw, OSU's MB/s, a Jacobi solver's speedup. It is keyed as
// its sample is.
type ToolValue struct {
	Size    uint64  `json:"size"`
	Rank    int     `json:"rank"`
	Peer    int     `json:"peer"`
	Variant string  `json:"variant,omitempty"`
	Name    string  `json:"name"`  // lower case, such as "algbw" or "latency"
	Value   float64 `json:"value"` // in Unit
	Unit    string  `json:"unit"`  // the tool's unit and what it means, such as "GB/s (1e9 B/s)"
}
