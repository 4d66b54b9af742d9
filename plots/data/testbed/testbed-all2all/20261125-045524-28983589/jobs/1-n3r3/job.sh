#!/bin/bash
#SBATCH --job-name=efaxx-testbed-all2all
#SBATCH --chdir=/tmp/tb-work4/testbed-all2all/20261125-045524-28983589/jobs/1-n3r3
#SBATCH --output=/tmp/tb-work4/testbed-all2all/20261125-045524-28983589/jobs/1-n3r3/slurm-%j.out
#SBATCH --nodes=3
#SBATCH --ntasks=3
#SBATCH --ntasks-per-node=1
#SBATCH --time=20
#SBATCH --exclusive
# efaxx job 2 of 3: sweep testbed-all2all (sha256 21f5eb1c749f), session 20261125-045524-28983589
# allocation: nodes=3 ranks=3; one srun step per point:
#   step 0: point 2, all2all nodes=3 strategy=single (46c08037f185b243)
#   step 1: point 3, all2all nodes=3 strategy=split (5b009c3f6281837f)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/tmp/tb-work4/testbed-all2all/20261125-045524-28983589/jobs/1-n3r3

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
	efaxx_mark "$efaxx_step_dir/step.start" "start=$(date +%s.%N)"
	"$@" >"$efaxx_step_dir/launcher.log" 2>&1 &
	wait $!
	local rc=$?
	efaxx_mark "$efaxx_step_dir/step.exit" "rc=$rc signal=- end=$(date +%s.%N)"
	efaxx_step_dir=
	[ "$rc" = 0 ] || efaxx_failed=1
}

efaxx_mark "$efaxx_job_dir/job.start" "job=${SLURM_JOB_ID:-} nodes=${SLURM_JOB_NODELIST:-} start=$(date +%s.%N)"

# step 0: p002-46c08037f185b243
efaxx_step /tmp/tb-work4/testbed-all2all/20261125-045524-28983589/002-46c08037f185b243 srun \
	--job-name=p002-46c08037f185b243 --nodes=3 --ntasks=3 --ntasks-per-node=1 --mpi=pmix \
	--kill-on-bad-exit=1 \
	--output=/tmp/tb-work4/testbed-all2all/20261125-045524-28983589/002-46c08037f185b243/step-%J.out \
	/tmp/ci-fresh/bin/efaxx-runner --benchmark all2all --provider tcp \
	--sizes 1048576,4194304,16777216,67108864 --iterations 100 --duration 2s --warmup 1 \
	--timeout 120s --chunk 1048576 --window 8 --slots 64 --rails 4 --strategy single \
	--nic 'nic[0-3]' --pin none --memory host --link-gbps 1 \
	--out /tmp/tb-work4/testbed-all2all/20261125-045524-28983589/002-46c08037f185b243

# step 1: p003-5b009c3f6281837f
efaxx_step /tmp/tb-work4/testbed-all2all/20261125-045524-28983589/003-5b009c3f6281837f srun \
	--job-name=p003-5b009c3f6281837f --nodes=3 --ntasks=3 --ntasks-per-node=1 --mpi=pmix \
	--kill-on-bad-exit=1 \
	--output=/tmp/tb-work4/testbed-all2all/20261125-045524-28983589/003-5b009c3f6281837f/step-%J.out \
	/tmp/ci-fresh/bin/efaxx-runner --benchmark all2all --provider tcp \
	--sizes 1048576,4194304,16777216,67108864 --iterations 100 --duration 2s --warmup 1 \
	--timeout 120s --chunk 1048576 --window 8 --slots 64 --rails 4 --strategy split \
	--nic 'nic[0-3]' --pin none --memory host --link-gbps 1 \
	--out /tmp/tb-work4/testbed-all2all/20261125-045524-28983589/003-5b009c3f6281837f

exit "$efaxx_failed"
