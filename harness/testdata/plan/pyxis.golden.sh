### job 0: nodes=2 ranks=16
#!/bin/bash
#SBATCH --job-name=efaxx-pyxis
#SBATCH --chdir=/shared/efaxx-runs/pyxis/20261122-120000-abcd1234/jobs/0-n2r16
#SBATCH --output=/shared/efaxx-runs/pyxis/20261122-120000-abcd1234/jobs/0-n2r16/slurm-%j.out
#SBATCH --nodes=2
#SBATCH --ntasks=16
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --partition=p5
#SBATCH --time=0:30:00
#SBATCH --exclusive
# efaxx job 1 of 1: sweep pyxis (sha256 3aee6316bb59), session 20261122-120000-abcd1234
# allocation: nodes=2 ranks=16; one srun step per point:
#   step 0: point 0, write (58e079b663492c5d)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/shared/efaxx-runs/pyxis/20261122-120000-abcd1234/jobs/0-n2r16

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

# step 0: p000-58e079b663492c5d
efaxx_step /shared/efaxx-runs/pyxis/20261122-120000-abcd1234/000-58e079b663492c5d srun \
	--job-name=p000-58e079b663492c5d --nodes=2 --ntasks=16 --ntasks-per-node=8 --mpi=pmix \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/pyxis/20261122-120000-abcd1234/000-58e079b663492c5d/step-%J.out \
	--container-image='nvcr.io#nvidia/efaxx:0.1' \
	--container-name=efaxx_a13be639_"${SLURM_JOB_ID}" \
	--container-mounts=/shared/efaxx-runs/pyxis/20261122-120000-abcd1234:/shared/efaxx-runs/pyxis/20261122-120000-abcd1234,/fsx:/fsx,/opt/amazon/efa:/opt/amazon/efa:ro \
	--container-workdir=/fsx/work --no-container-mount-home /usr/bin/env \
	'EFAXX_IMAGE=nvcr.io#nvidia/efaxx:0.1' \
	EFAXX_IMAGE_DIGEST=sha256:abababababababababababababababababababababababababababababababab \
	EFAXX_IMAGE_ENV=FI_EFA_USE_DEVICE_RDMA,FI_PROVIDER FI_EFA_USE_DEVICE_RDMA=1 FI_PROVIDER=efa \
	/usr/local/bin/efaxx-runner --benchmark write --provider efa \
	--sizes 1048576,4194304,16777216,67108864,268435456,1073741824 --iterations 100 --warmup 10 \
	--timeout 60s --chunk 8388608 --window 16 --slots 64 --rails 1 --strategy single --nic auto \
	--pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/pyxis/20261122-120000-abcd1234/000-58e079b663492c5d

exit "$efaxx_failed"
