#!/usr/bin/env bash
# kernels/run-gpu.sh: on a GPU machine, builds the CUDA plugin, checks that
# planted errors fail with their own messages, runs the GPU sweeps into one
# store, and ends with a short table of what they measured.
#
# Needs there: nvcc, Open MPI's mpirun, libfabric, and bin/efaxx and
# bin/efaxx-runner built elsewhere (`make build`: the GPU machine needs no
# Go). The libraries are the machine's own, unless EFAXX_LIBFABRIC names
# the install prefix of another libfabric (one built with CUDA, as
# kernels/build-libfabric.sh makes, which `memory = "device"` needs): then
# its lib/ comes first on LD_LIBRARY_PATH for the sweeps on GPU memory
# (sweeps/gpu/device.toml; without EFAXX_LIBFABRIC they are left out), for
# efaxx-runner and Open MPI alike, while every other sweep runs on the
# machine's own; every rank's fingerprint names the library it loaded.
#
# Leaves in $OUT (default out/gpu): gpu.db, the store of every run (open it
# with efaxx --db); gpu-runs.tgz, their run directories (efaxx ingest reads
# them); checks.txt, the planted errors and the messages they failed with;
# topo.txt; log.txt, everything printed.
#
#   OUT=/tmp/out kernels/run-gpu.sh [SWEEP.toml ...]   (default: sweeps/gpu/*.toml
#   but node-*.toml, which kernels/run-node.sh runs on a node of several GPUs)
#
# Exit status: 0 when every check failed as planted and every sweep ran; 1
# otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
exec > >(tee "$OUT/log.txt") 2>&1
work=$(mktemp -d)
db=$OUT/gpu.db
status=0
log() { printf '\n== %s\n' "$*"; }

# hmem runs a command with the libfabric of EFAXX_LIBFABRIC first on the
# library path: the runs on GPU memory; every other run keeps the one of
# the machine.
hmem() { LD_LIBRARY_PATH=$EFAXX_LIBFABRIC/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }

log "machine"
nvidia-smi -L
nvidia-smi topo -m | tee "$OUT/topo.txt"
nvcc --version | tail -1
mpirun --version | head -1
echo "libfabric: ${EFAXX_LIBFABRIC:-the one of the machine}"
uptime

log "build the plugin"
make -s kernels || exit 1
ls -l bin/

# planted NAME SIZE MESSAGE SWEEP: runs SWEEP with byte SIZE damaged and
# passes only when the run fails with MESSAGE (a failure for another reason
# is not the check working).
planted() {
	local name=$1 size=$2 want=$3 sweep=$4 out lf=()
	[[ $sweep == *device* ]] && lf=(hmem)
	out=$(EFAXX_TEST_CORRUPT_SIZE=$size "${lf[@]}" bin/efaxx --db "$work/check.db" --workdir "$work/check" run "$sweep" 2>&1)
	local rc=$?
	if [ $rc -eq 3 ] && grep -qF -- "$want" <<<"$out"; then # 3: a run that did not end ok
		echo "ok: $name failed as planted: $(grep -F -- "$want" <<<"$out" | head -1 | sed 's/^ *//')" | tee -a "$OUT/checks.txt"
	else
		echo "FAIL: $name: exit $rc, no \"$want\" in:" | tee -a "$OUT/checks.txt"
		tail -5 <<<"$out" | tee -a "$OUT/checks.txt"
		status=1
	fi
}

log "checks: planted errors fail with their own messages"
cat >"$work/ipc.toml" <<'TOML'
name = "check-ipc"
benchmark = "ipc"
[params]
ranks = 2
launch = "auto"
sizes = ["1MiB", "4MiB"]
iterations = 10
warmup = 2
TOML
planted "a byte flipped in the ipc target" 4194304 "16-byte words wrong after the last iteration" "$work/ipc.toml"
cat >"$work/queue.toml" <<'TOML'
name = "check-queue"
benchmark = "queue"
[params]
sizes = [64]
iterations = 1000
warmup = 10
timeout = "5s"
TOML
planted "a queue command published with a damaged payload" 64 "held no whole command" "$work/queue.toml"
cat >"$work/proxy.toml" <<'TOML'
name = "check-proxy"
benchmark = "proxy"
[params]
provider = "shm"
ranks = 2
sizes = ["1MiB"]
iterations = 10
warmup = 2
TOML
planted "a proxy write's source damaged" 1048576 "payload mismatch" "$work/proxy.toml"
if [ -n "${EFAXX_LIBFABRIC:-}" ]; then
	cat >"$work/device.toml" <<'TOML'
name = "check-device"
benchmark = "write"
[params]
provider = "shm"
ranks = 2
memory = "device"
sizes = ["1MiB"]
iterations = 10
warmup = 2
TOML
	planted "a byte of a GPU source buffer flipped" 1048576 "payload mismatch" "$work/device.toml"
fi

sweeps=("$@")
if [ ${#sweeps[@]} -eq 0 ]; then
	for s in sweeps/gpu/*.toml; do [[ $s == */node-* ]] || sweeps+=("$s"); done
fi
if [ -z "${EFAXX_LIBFABRIC:-}" ]; then # GPU memory needs a libfabric built with CUDA
	for i in "${!sweeps[@]}"; do [[ ${sweeps[$i]} == */device.toml ]] && unset 'sweeps[i]'; done
fi
for s in "${sweeps[@]}"; do
	log "run $s"
	lf=()
	[[ $s == */device.toml ]] && lf=(hmem)
	"${lf[@]}" bin/efaxx --db "$db" --workdir "$work/runs" run "$s" || status=1
done

tar czf "$OUT/gpu-runs.tgz" -C "$work" runs
log "stored in $db"
bin/efaxx --db "$db" runs --limit 0
for id in $(bin/efaxx --db "$db" runs --limit 0 --format csv | awk -F, 'NR > 1 { print $1 }' | sort -n); do
	bin/efaxx --db "$db" show "$id"
done

log "checks"
cat "$OUT/checks.txt"
log "summary: each variant over its same-run floor or reference (LAT VS ..., and the unit's VS ...)"
for id in $(bin/efaxx --db "$db" runs --limit 0 --format csv | awk -F, 'NR > 1 { print $1 }' | sort -n); do
	label=$(bin/efaxx --db "$db" show "$id" | head -1)
	bin/efaxx --db "$db" show --format csv "$id" |
		awk -F, -v l="$label" 'NR == 1 && !shown++ { h = $0 } $1 ~ /^(8B|64KiB|1MiB|16MiB|256MiB)$/ { print l ": " $0 }'
done | head -80
exit $status
