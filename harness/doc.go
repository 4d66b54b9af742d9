// Package harness owns efaxx's domain: sweeps, the points they expand to,
// and running them.
//
// # Sweep files
//
// A sweep is a TOML file:
//
//	name = "demo"                     # required; letters, digits, '.', '_', '-'
//	description = "what and why"      # optional
//	benchmark = ["sendrecv", "write"] # required; a string, or a list: an axis
//
//	[params]                          # optional; every key has a default
//	provider   = ["shm", "tcp"]       # auto | shm | tcp | efa (auto)
//	ranks      = 2                    # 2..65536 (2)
//	sizes      = "4KiB..16MiB"        # the sizes of each point ("4KiB..4MiB")
//	iterations = 200                  # >= 1 (100)
//	duration   = "2s"                 # instead, seconds of timed iterations per size; sendrecv, send, write, all2all ("0s": off)
//	warmup     = 20                   # >= 0 (10); adaptive: at least one per rail
//	timeout    = "60s"                # > 0, <= 24h; bounds every wait (60s)
//	chunk      = "1MiB"               # bytes per fabric operation (1MiB)
//	window     = 16                   # operations in flight per rail, 1..4096 (16)
//	slots      = 64                   # most target buffers per sender, 1..64, a power of two (64)
//	rails      = 4                    # endpoints per rank, one per NIC, 1..16 (1)
//	strategy   = "split"              # single | split | round-robin | per-op | adaptive (single)
//	nics       = "nic*"               # NICs: names, a pattern, or auto (auto)
//	pinning    = "numa"               # numa | none: pin to a core of the NIC's NUMA node (numa)
//	memory     = "host"               # host; pinned and device arrive with the CUDA plugin (host)
//	link_gbps  = 100                  # link speed per NIC for percent of link; 0: the provider's (0)
//
//	[slurm]                           # optional: what submit asks of Slurm (Resources)
//	nodes      = [1, 2]               # an axis, like a param (1)
//	partition  = "debug"
//
//	[container]                       # optional: the ranks run in it, through pyxis
//	image      = "/fsx/efaxx.sqsh"
//
// Any param may be a list of values instead of one value: the list is an axis,
// and the sweep expands to the cartesian product of its axes (see
// Sweep.Points). The exception is sizes, which is always the inner loop of
// each point: either a list of sizes, kept in order, or a range
// "MIN..MAX" (MIN, 2·MIN, 4·MIN, … then MAX) or "MIN..MAX xN" (steps of ×N),
// or one size.
//
// A size is an integer count of bytes or a string: a whole number and an
// optional unit, B, K or KiB, M or MiB, G or GiB, T or TiB, all powers of
// 1024 (see package bytesize).
//
// Validation is strict: unknown keys, wrong types, values out of range, empty
// lists and duplicate list values are errors, and Parse reports all of them at
// once, each as "file:line: key: message" (a lineerr.Error). Strings that reach
// a job script are refused when no quoting can carry them (line breaks).
//
// # Running
//
// Local runs a sweep here with mpirun. On Slurm, NewPlan groups points by
// shape into jobs of one srun step per point, and SlurmExecutor submits the
// plan, syncs its jobs' state and results into the store, and cancels them.
package harness
