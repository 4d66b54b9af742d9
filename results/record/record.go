// Package record defines the files that cross from compute nodes to the
// results store: the per-rank NDJSON records that efaxx-runner writes and the
// run manifest (run.json) that the executor writes beside them.
//
// It is the contract between the runner, the executors and ingest, so it
// imports nothing of ours and holds no logic beyond encoding.
//
// Units are raw: bytes and nanoseconds, never derived rates.
package record

import (
	"fmt"
	"strings"
)

// Record types, the "type" field of every NDJSON line.
const (
	TypeRank   = "rank"   // first line of a rank file: the fingerprint
	TypeSample = "sample" // one line per (message size, peer)
	TypeEnd    = "end"    // last line: the rank's status
)

// Status values of an End record and of a run.
const (
	StatusOK        = "ok"
	StatusFailed    = "failed"
	StatusPartial   = "partial"   // runs only: some records are missing or unreadable
	StatusTimeout   = "timeout"   // runs only: the scheduler or executor ran out of time
	StatusCancelled = "cancelled" // runs only
	StatusRunning   = "running"   // runs only: not finished when ingested
)

// Rank is the first record of a rank file. It fingerprints the process so a
// result can always be traced to the machine, library versions and code that
// produced it.
type Rank struct {
	Type      string `json:"type"` // TypeRank
	Rank      int    `json:"rank"`
	World     int    `json:"world"`
	LocalRank int    `json:"local_rank"`
	LocalSize int    `json:"local_size"`
	Host      string `json:"host"`
	PID       int    `json:"pid"`
	Benchmark string `json:"benchmark"`

	// Fabric as libfabric resolved it: provider is the full name
	// ("tcp;ofi_rxm"), domain is the NIC or "shm". Fabric, Domain and
	// LinkBps are rail 0's; Rails lists every rail.
	Provider  string   `json:"provider"`
	Fabric    string   `json:"fabric"`
	Domain    string   `json:"domain"`
	MRMode    []string `json:"mr_mode"`
	LinkBps   uint64   `json:"link_bps"` // NIC link speed in bit/s as the provider reports it; 0 when unknown
	Libfabric string   `json:"libfabric"`
	MPI       string   `json:"mpi"`
	GPU       string   `json:"gpu,omitempty"` // the GPU a GPU benchmark used: name, arch, SMs, driver
	// HostPages says how much of the host data buffers transparent huge
	// pages back ("huge pages back 128 of 128 MiB"): shm's large copies
	// run at a third of the speed on small pages.
	HostPages string `json:"host_pages,omitempty"`
	// LibfabricLib is the libfabric library the rank loaded (its path):
	// which build, where a machine has more than one.
	LibfabricLib string `json:"libfabric_lib,omitempty"`
	// Memory says where the data buffers are and what registered them
	// ("GPU memory (cudaMalloc) through FI_HMEM_CUDA, registered by shm of
	// libfabric 1.17").
	Memory string `json:"memory,omitempty"`

	// Rails are the endpoints this rank opened, one per NIC; absent in
	// files written before rails existed (one rail: Domain).
	Rails []Rail `json:"rails,omitempty"`
	// SharedNICs is true when there were fewer NICs than rails, so that
	// several rails share a NIC.
	SharedNICs bool `json:"shared_nics,omitempty"`
	// Core is the CPU the measuring thread is pinned to; nil when unpinned.
	Core *int `json:"core,omitempty"`
	// Pinning is the pinning policy asked for, and why it gave no core when it did not.
	Pinning string `json:"pinning,omitempty"`

	// OS is the operating system the rank saw: PRETTY_NAME of its
	// /etc/os-release, the image's in a container.
	OS string `json:"os,omitempty"`
	// InContainer is true when the rank's root filesystem was not its
	// host's (the rank saw it mounted from a directory, or as an overlay).
	InContainer bool `json:"in_container"`
	// Image is the container image efaxx started the rank in; nil when
	// the step asked for none.
	Image *Image `json:"image,omitempty"`

	Version string `json:"efaxx_version"`
	Commit  string `json:"efaxx_commit"`
	StartNs int64  `json:"start_ns"` // Unix time in ns
}

// The variables through which efaxx tells a runner in a container what
// image it is in (whose file cannot be seen from inside): the image as
// pyxis was given it, its digest, and the names of the variables the sweep
// set in it, comma-separated, whose values the runner records as it sees
// them. A sweep's [container] env may not set EFAXX_ names.
const (
	EnvImage       = "EFAXX_IMAGE"
	EnvImageDigest = "EFAXX_IMAGE_DIGEST"
	EnvImageEnv    = "EFAXX_IMAGE_ENV"
)

// Image is the container image a rank ran in, as efaxx handed it to
// pyxis, and the variables the sweep set in it.
type Image struct {
	Ref    string `json:"ref"`              // a squashfs path or a registry reference
	Digest string `json:"digest,omitempty"` // "sha256:HEX" of the squashfs, or the registry's; "" when unknown
	// Env holds the sweep's [container] env, each value as the rank saw
	// it inside the container.
	Env map[string]string `json:"env,omitempty"`
}

// Rail is one endpoint of a rank: its NIC and that NIC's link speed.
type Rail struct {
	Domain  string `json:"domain"` // the NIC (libfabric domain)
	Fabric  string `json:"fabric"`
	LinkBps uint64 `json:"link_bps"` // as the provider reports it; 0 when unknown
}

// Sample is one measurement: one rank, one peer, one message size.
//
// BytesSent and BytesRecv count payload bytes this rank moved per iteration,
// so bandwidth is derived, never stored: 8·(sent+recv)·iterations/elapsed.
type Sample struct {
	Type       string `json:"type"` // TypeSample
	Rank       int    `json:"rank"`
	Peer       int    `json:"peer"`              // the other rank; -1 when the rank talks to several at once
	Role       string `json:"role"`              // "initiator", "target", or "both" (all2all)
	Size       uint64 `json:"size"`              // message size in bytes
	Variant    string `json:"variant,omitempty"` // how it was measured, when a run measures a size several ways
	BytesSent  uint64 `json:"bytes_sent"`
	BytesRecv  uint64 `json:"bytes_recv"`
	Iterations uint64 `json:"iterations"`
	ElapsedNs  uint64 `json:"elapsed_ns"` // all timed iterations, including the wait for the last one to be verified
	Lat        Lat    `json:"lat_ns"`     // per-iteration times

	// Multi-rail facts; absent in files written before rails existed.
	Peers     string   `json:"peers,omitempty"`      // who this rank talked to: "3", or "all" for every other rank
	Strategy  string   `json:"strategy,omitempty"`   // how chunks were spread over the rails
	Rails     []int    `json:"rails,omitempty"`      // the rails the strategy used for this sample
	RailBytes []uint64 `json:"rail_bytes,omitempty"` // bytes this rank sent on each rail over all timed iterations
	LinkBps   uint64   `json:"link_bps,omitempty"`   // capacity of the NICs behind Rails (each counted once), bit/s; 0 when unknown
	Requeued  uint64   `json:"requeued,omitempty"`   // posts the provider refused with -FI_EAGAIN, queued and posted later
}

// Lat holds per-iteration time percentiles in nanoseconds.
type Lat struct {
	Min uint64 `json:"min"`
	P50 uint64 `json:"p50"`
	P99 uint64 `json:"p99"`
	Max uint64 `json:"max"`
}

// End is the last record of a rank file. A rank file without one was cut
// short (a crash, a kill, a node failure).
type End struct {
	Type      string `json:"type"` // TypeEnd
	Rank      int    `json:"rank"`
	Status    string `json:"status"` // StatusOK or StatusFailed
	Error     string `json:"error,omitempty"`
	ElapsedNs uint64 `json:"elapsed_ns"`
	// Signal names the signal that stopped the rank from outside
	// ("terminated"), usually because another rank failed first: a
	// consequence, so a run's reason prefers a rank without one.
	Signal string `json:"signal,omitempty"`
}

// ManifestName is the file name of a run manifest inside a run directory.
const ManifestName = "run.json"

// Manifest describes one run: one point executed once (one attempt), by
// whatever launched it. The executor writes it before launching and again
// when the launcher exits, each time atomically.
type Manifest struct {
	UID       string         `json:"uid"`        // unique across stores: ingest keys on it
	Sweep     string         `json:"sweep"`      // sweep name
	SweepFile string         `json:"sweep_file"` // spec text, relative to the run directory
	SweepHash string         `json:"sweep_hash"`
	Point     string         `json:"point"` // content hash of the resolved point
	Index     int            `json:"index"` // position of the point in the expansion
	Benchmark string         `json:"benchmark"`
	Params    map[string]any `json:"params"` // resolved parameters, sizes excluded
	Sizes     []uint64       `json:"sizes"`
	Ranks     int            `json:"ranks"`
	Executor  string         `json:"executor"` // "local" or "slurm"
	Command   []string       `json:"command"`
	StartNs   int64          `json:"start_ns"`
	EndNs     int64          `json:"end_ns,omitempty"`
	ExitCode  *int           `json:"exit_code,omitempty"` // nil while running
	Error     string         `json:"error,omitempty"`     // why the launcher failed, when it did
	TimedOut  bool           `json:"timed_out,omitempty"`
	Cancelled bool           `json:"cancelled,omitempty"` // stopped by the user or the scheduler
	// NotStarted says the scheduler ended the run before it started, so
	// its ranks could leave nothing: no missing end record is named.
	NotStarted bool `json:"not_started,omitempty"`

	// RunnerVersion is the runner the executor launched, as it knew it:
	// efaxx-runner --version, or the container image that holds it.
	// Resubmitting a sweep skips points with an ok run of the same version.
	RunnerVersion string `json:"runner_version,omitempty"`

	// The Slurm job step that ran the point; empty for local runs.
	JobID    string `json:"job_id,omitempty"`    // the job, as sbatch printed it: "4711"
	Cluster  string `json:"cluster,omitempty"`   // the cluster, when sbatch named one
	StepID   string `json:"step_id,omitempty"`   // the step, "4711.3"; "" when it never started
	NodeList string `json:"node_list,omitempty"` // its nodes as Slurm writes them, "h[1-2]"

	// SchedulerReason says how the scheduler ended the job, when the job's
	// end decided the run's: "slurm job 4711 CANCELLED by 0".
	SchedulerReason string `json:"scheduler_reason,omitempty"`

	// Tags are the user's labels for the run (efaxx run --tag k=v), stored
	// with it and filtered on by efaxx runs --tag. Nil when there are none.
	Tags map[string]string `json:"tags,omitempty"`

	// Launcher is the efaxx process that launched a local run and writes
	// its end here, so that ingest can tell a run whose launcher is gone
	// (killed, the machine restarted) from one still going. Nil for Slurm
	// runs, whose end sync learns from the scheduler, and in manifests
	// written before it existed.
	Launcher *Launcher `json:"launcher,omitempty"`
}

// Launcher names a process on one host, in one boot: a pid names another
// process after a restart.
type Launcher struct {
	Host   string `json:"host"`
	BootID string `json:"boot_id"` // /proc/sys/kernel/random/boot_id; "" where unknown
	PID    int    `json:"pid"`
	PIDNS  string `json:"pid_ns,omitempty"` // /proc/self/ns/pid ("pid:[4026531836]"): a pid means this process only in it
}

// JoinReasons writes a reason of several parts, as Manifest.Error and a
// run's stored reason hold them: the parts that are not empty, joined
// with "; ".
func JoinReasons(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "; ")
}

// RankFile returns the file name of rank r's records.
func RankFile(r int) string { return fmt.Sprintf("rank-%05d.ndjson", r) }
