// Package slurm is efaxx's adapter to the Slurm scheduler. It renders a
// generic job description (an allocation and the srun steps inside it) to
// an sbatch script, submits it with sbatch --parsable, cancels it with
// scancel, and learns how it is doing from sacct, falling back to squeue,
// scontrol show job and the marker files the script itself leaves on exit,
// so a job's end is known even on a cluster without accounting and after
// Slurm has forgotten the job.
//
// It knows nothing of sweeps: what a step runs is a command line, given.
// Every Slurm command goes through a Commander, so tests can fake them.
//
// The script quotes every value for the shell, escapes every #SBATCH value
// for sbatch's own parser, and refuses values that neither can hold (line
// breaks and other control characters).
package slurm
