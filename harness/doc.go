// Package harness owns efaxx's domain: sweeps, the points they expand to,
// and running them.
//
// # Sweep files
//
// A sweep is a TOML file; docs/sweeps.md describes every key, its range
// and its default, and the benchmarks table (package benchmarks) says
// which keys each benchmark takes. Parse validates strictly: unknown
// keys, wrong types, values out of range, empty lists and duplicate list
// values are errors, reported all at once, each as "file:line: key:
// message" where the key has a line (a lineerr.Error). Strings that reach
// a job script are refused when no quoting can carry them (line breaks).
//
// Any param may be a list of values instead of one value: the list is an
// axis, and the sweep expands to the cartesian product of its axes (see
// Sweep.Points), except sizes, which is always the inner loop of each
// point (package bytesize reads sizes).
//
// # Running
//
// Local runs a sweep here with mpirun. On Slurm, NewPlan groups points by
// shape into jobs of one srun step per point, and SlurmExecutor submits the
// plan, syncs its jobs' state and results into the store, and cancels them.
package harness
