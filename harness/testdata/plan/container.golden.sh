### job 0: nodes=2 ranks=2
#!/bin/bash
#SBATCH --job-name=efaxx-container
#SBATCH --chdir=/shared/efaxx-runs/container/20261122-120000-abcd1234/jobs/0-n2r2
#SBATCH --output=/shared/efaxx-runs/container/20261122-120000-abcd1234/jobs/0-n2r2/slurm-%j.out
#SBATCH --nodes=2
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=1
# efaxx job 1 of 1: sweep container (sha256 dc35af7010ff), session 20261122-120000-abcd1234
# allocation: nodes=2 ranks=2; one srun step per point:
#   step 0: point 0, sendrecv (b7d2a238449ac0b7)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/shared/efaxx-runs/container/20261122-120000-abcd1234/jobs/0-n2r2

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

# step 0: p000-b7d2a238449ac0b7
efaxx_step /shared/efaxx-runs/container/20261122-120000-abcd1234/000-b7d2a238449ac0b7 srun \
	--job-name=p000-b7d2a238449ac0b7 --nodes=2 --ntasks=2 --ntasks-per-node=1 --mpi=pmix \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/container/20261122-120000-abcd1234/000-b7d2a238449ac0b7/step-%J.out \
	--container-image=/fsx/images/efaxx.sqsh --container-name=efaxx_e83f533c_"${SLURM_JOB_ID}" \
	--container-mounts=/shared/efaxx-runs/container/20261122-120000-abcd1234:/shared/efaxx-runs/container/20261122-120000-abcd1234 \
	--no-container-mount-home /usr/bin/env EFAXX_IMAGE=/fsx/images/efaxx.sqsh \
	EFAXX_IMAGE_DIGEST=sha256:abababababababababababababababababababababababababababababababab \
	EFAXX_IMAGE_ENV=GREETING,PATH 'GREETING=it'\''s "inside"; $(not run)' PATH=/opt/conda/bin \
	/usr/local/bin/efaxx-runner --benchmark sendrecv --provider tcp --sizes 4096 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/container/20261122-120000-abcd1234/000-b7d2a238449ac0b7

exit "$efaxx_failed"
