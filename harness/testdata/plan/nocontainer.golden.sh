### job 0: nodes=1 ranks=2
#!/bin/bash
#SBATCH --job-name=efaxx-plain
#SBATCH --chdir=/shared/efaxx-runs/plain/20261122-120000-abcd1234/jobs/0-n1r2
#SBATCH --output=/shared/efaxx-runs/plain/20261122-120000-abcd1234/jobs/0-n1r2/slurm-%j.out
#SBATCH --nodes=1
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=2
#SBATCH --partition=debug
#SBATCH --time=10
# efaxx job 1 of 1: sweep plain (sha256 117aa99e9252), session 20261122-120000-abcd1234
# allocation: nodes=1 ranks=2; one srun step per point:
#   step 0: point 0, sendrecv (92087ab5578e5dae)
#   step 1: point 1, write (1bf159c281c8a4de)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/shared/efaxx-runs/plain/20261122-120000-abcd1234/jobs/0-n1r2

# efaxx_mark FILE TEXT: write a marker in one rename, so no reader sees half.
efaxx_mark() { printf '%s\n' "$2" >"$1.tmp" && mv -f "$1.tmp" "$1"; }

# efaxx_exit RC SIGNAL: record how the job ended, and the step it was in.
efaxx_exit() {
	trap - EXIT TERM INT HUP
	local end
	end=$(date +%s.%N)
	[ -z "$efaxx_step_dir" ] || efaxx_mark "$efaxx_step_dir/step.exit" "rc=$1 signal=$2 end=$end"
	efaxx_mark "$efaxx_job_dir/job.exit" "rc=$1 signal=$2 end=$end"
	exit "$1"
}
trap 'efaxx_exit $? -' EXIT
trap 'efaxx_exit 143 TERM' TERM
trap 'efaxx_exit 130 INT' INT
trap 'efaxx_exit 129 HUP' HUP

# efaxx_step DIR COMMAND...: run one step, its output in DIR/launcher.log.
efaxx_step() {
	efaxx_step_dir=$1
	shift
	mkdir -p "$efaxx_step_dir"
	rm -f "$efaxx_step_dir/step.exit" # of a run before a requeue
	efaxx_mark "$efaxx_step_dir/step.start" "start=$(date +%s.%N)"
	"$@" >"$efaxx_step_dir/launcher.log" 2>&1 &
	wait $!
	local rc=$?
	efaxx_mark "$efaxx_step_dir/step.exit" "rc=$rc signal=- end=$(date +%s.%N)"
	efaxx_step_dir=
	[ "$rc" = 0 ] || efaxx_failed=1
}

# A requeued job runs this script again: its last run's end is not this one's.
rm -f "$efaxx_job_dir/job.exit"
efaxx_mark "$efaxx_job_dir/job.start" "job=${SLURM_JOB_ID:-} nodes=${SLURM_JOB_NODELIST:-} start=$(date +%s.%N)"

# step 0: p000-92087ab5578e5dae
efaxx_step /shared/efaxx-runs/plain/20261122-120000-abcd1234/000-92087ab5578e5dae srun \
	--job-name=p000-92087ab5578e5dae --nodes=1 --ntasks=2 --ntasks-per-node=2 --mpi=pmix \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/plain/20261122-120000-abcd1234/000-92087ab5578e5dae/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider tcp \
	--sizes 4096,16384,65536,262144,1048576,4194304,16777216,67108864 --iterations 20 --warmup 2 \
	--timeout 60s --chunk 1048576 --window 16 --rails 1 --strategy single --nic nic0 --pin numa \
	--memory host --link-gbps 0 \
	--out /shared/efaxx-runs/plain/20261122-120000-abcd1234/000-92087ab5578e5dae

# step 1: p001-1bf159c281c8a4de
efaxx_step /shared/efaxx-runs/plain/20261122-120000-abcd1234/001-1bf159c281c8a4de srun \
	--job-name=p001-1bf159c281c8a4de --nodes=1 --ntasks=2 --ntasks-per-node=2 --mpi=pmix \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/plain/20261122-120000-abcd1234/001-1bf159c281c8a4de/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark write --provider tcp \
	--sizes 4096,16384,65536,262144,1048576,4194304,16777216,67108864 --iterations 20 --warmup 2 \
	--timeout 60s --chunk 8388608 --window 16 --slots 64 --rails 1 --strategy single --nic nic0 \
	--pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/plain/20261122-120000-abcd1234/001-1bf159c281c8a4de

exit "$efaxx_failed"
