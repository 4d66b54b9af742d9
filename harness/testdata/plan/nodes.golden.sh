### job 0: nodes=1 ranks=2
#!/bin/bash
#SBATCH --job-name=efaxx-scaling
#SBATCH --chdir=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/0-n1r2
#SBATCH --output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/0-n1r2/slurm-%j.out
#SBATCH --nodes=1
#SBATCH --ntasks=2
#SBATCH --ntasks-per-node=2
# efaxx job 1 of 3: sweep scaling (sha256 f46776effe90), session 20261122-120000-abcd1234
# allocation: nodes=1 ranks=2; one srun step per point:
#   step 0: point 0, sendrecv provider=tcp nodes=1 (2fff4d7db9ea1482)
#   step 1: point 3, sendrecv provider=shm nodes=1 (9c89edf8da5ae4bf)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/0-n1r2

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

# step 0: p000-2fff4d7db9ea1482
efaxx_step /shared/efaxx-runs/scaling/20261122-120000-abcd1234/000-2fff4d7db9ea1482 srun \
	--job-name=p000-2fff4d7db9ea1482 --nodes=1 --ntasks=2 --ntasks-per-node=2 --mpi=pmi2 \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/000-2fff4d7db9ea1482/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider tcp --sizes 65536,1048576 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/scaling/20261122-120000-abcd1234/000-2fff4d7db9ea1482

# step 1: p003-9c89edf8da5ae4bf
efaxx_step /shared/efaxx-runs/scaling/20261122-120000-abcd1234/003-9c89edf8da5ae4bf srun \
	--job-name=p003-9c89edf8da5ae4bf --nodes=1 --ntasks=2 --ntasks-per-node=2 --mpi=pmi2 \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/003-9c89edf8da5ae4bf/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider shm --sizes 65536,1048576 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/scaling/20261122-120000-abcd1234/003-9c89edf8da5ae4bf

exit "$efaxx_failed"
### job 1: nodes=2 ranks=4
#!/bin/bash
#SBATCH --job-name=efaxx-scaling
#SBATCH --chdir=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/1-n2r4
#SBATCH --output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/1-n2r4/slurm-%j.out
#SBATCH --nodes=2
#SBATCH --ntasks=4
#SBATCH --ntasks-per-node=2
# efaxx job 2 of 3: sweep scaling (sha256 f46776effe90), session 20261122-120000-abcd1234
# allocation: nodes=2 ranks=4; one srun step per point:
#   step 0: point 1, sendrecv provider=tcp nodes=2 (350ca0015bdb81a6)
#   step 1: point 4, sendrecv provider=shm nodes=2 (94f4a7423ab03a93)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/1-n2r4

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

# step 0: p001-350ca0015bdb81a6
efaxx_step /shared/efaxx-runs/scaling/20261122-120000-abcd1234/001-350ca0015bdb81a6 srun \
	--job-name=p001-350ca0015bdb81a6 --nodes=2 --ntasks=4 --ntasks-per-node=2 --mpi=pmi2 \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/001-350ca0015bdb81a6/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider tcp --sizes 65536,1048576 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/scaling/20261122-120000-abcd1234/001-350ca0015bdb81a6

# step 1: p004-94f4a7423ab03a93
efaxx_step /shared/efaxx-runs/scaling/20261122-120000-abcd1234/004-94f4a7423ab03a93 srun \
	--job-name=p004-94f4a7423ab03a93 --nodes=2 --ntasks=4 --ntasks-per-node=2 --mpi=pmi2 \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/004-94f4a7423ab03a93/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider shm --sizes 65536,1048576 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/scaling/20261122-120000-abcd1234/004-94f4a7423ab03a93

exit "$efaxx_failed"
### job 2: nodes=4 ranks=8
#!/bin/bash
#SBATCH --job-name=efaxx-scaling
#SBATCH --chdir=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/2-n4r8
#SBATCH --output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/2-n4r8/slurm-%j.out
#SBATCH --nodes=4
#SBATCH --ntasks=8
#SBATCH --ntasks-per-node=2
# efaxx job 3 of 3: sweep scaling (sha256 f46776effe90), session 20261122-120000-abcd1234
# allocation: nodes=4 ranks=8; one srun step per point:
#   step 0: point 2, sendrecv provider=tcp nodes=4 (e4bfdded8c7f1ff0)
#   step 1: point 5, sendrecv provider=shm nodes=4 (9a5d9db0e42296dd)
#
# Written by efaxx. Each step runs in the background so that a signal from
# Slurm (scancel, the time limit) is handled at once; the traps record how
# the job and the step in progress ended, in marker files that efaxx reads
# when Slurm no longer knows the job.
set -u
efaxx_step_dir=
efaxx_failed=0
efaxx_job_dir=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/jobs/2-n4r8

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

# step 0: p002-e4bfdded8c7f1ff0
efaxx_step /shared/efaxx-runs/scaling/20261122-120000-abcd1234/002-e4bfdded8c7f1ff0 srun \
	--job-name=p002-e4bfdded8c7f1ff0 --nodes=4 --ntasks=8 --ntasks-per-node=2 --mpi=pmi2 \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/002-e4bfdded8c7f1ff0/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider tcp --sizes 65536,1048576 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/scaling/20261122-120000-abcd1234/002-e4bfdded8c7f1ff0

# step 1: p005-9a5d9db0e42296dd
efaxx_step /shared/efaxx-runs/scaling/20261122-120000-abcd1234/005-9a5d9db0e42296dd srun \
	--job-name=p005-9a5d9db0e42296dd --nodes=4 --ntasks=8 --ntasks-per-node=2 --mpi=pmi2 \
	--kill-on-bad-exit=1 --label \
	--output=/shared/efaxx-runs/scaling/20261122-120000-abcd1234/005-9a5d9db0e42296dd/step-%J.out \
	/opt/efaxx/bin/efaxx-runner --benchmark sendrecv --provider shm --sizes 65536,1048576 \
	--iterations 100 --warmup 10 --timeout 60s --chunk 1048576 --window 16 --rails 1 \
	--strategy single --nic auto --pin numa --memory host --link-gbps 0 \
	--out /shared/efaxx-runs/scaling/20261122-120000-abcd1234/005-9a5d9db0e42296dd

exit "$efaxx_failed"
