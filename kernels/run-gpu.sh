#!/usr/bin/env bash
# Builds the CUDA plugin on the GPU machine, checks that a planted error
# fails, and runs the GPU sweeps. efaxx and efaxx-runner come prebuilt in
# bin/ (the GPU machine has no Go); the machine's own Open MPI and
# libfabric serve them. The run directories (NDJSON) come back as one
# archive under $OUT, to be ingested with `efaxx ingest`.
#
#   OUT=/tmp/out kernels/run-gpu.sh [SWEEP.toml ...]   (default: sweeps/gpu/*.toml)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/gpu}
work=$(mktemp -d)
mkdir -p "$OUT"
log() { printf '\n== %s\n' "$*"; }

log "machine"
nvidia-smi -L
nvidia-smi topo -m | tee "$OUT/topo.txt"
nvcc --version | tail -1

log "build the plugin"
make -s kernels || exit 1
ls -l bin/

log "check: a planted wrong byte in the target fails the point"
cat >"$work/check.toml" <<'TOML'
name = "gpu-ipc-check"
benchmark = "ipc"
[params]
ranks = 2
launch = "auto"
sizes = ["1MiB", "4MiB"]
iterations = 10
warmup = 2
TOML
if EFAXX_TEST_CORRUPT_SIZE=4194304 bin/efaxx --db "$work/check.db" --workdir "$work/check" run "$work/check.toml"; then
	echo "FAIL: the planted error went unnoticed"
else
	echo "ok: the planted error failed the point"
	bin/efaxx --db "$work/check.db" runs --format csv
fi

cat >"$work/qcheck.toml" <<'TOML'
name = "gpu-queue-check"
benchmark = "queue"
[params]
sizes = [64]
iterations = 1000
warmup = 10
timeout = "5s"
TOML
if EFAXX_TEST_CORRUPT_SIZE=64 bin/efaxx --db "$work/check.db" --workdir "$work/check" run "$work/qcheck.toml"; then
	echo "FAIL: the damaged command went unnoticed"
else
	echo "ok: the damaged command failed the point"
fi

sweeps=("$@")
[ ${#sweeps[@]} -gt 0 ] || sweeps=(sweeps/gpu/*.toml)
for s in "${sweeps[@]}"; do
	log "run $s"
	bin/efaxx --db "$work/gpu.db" --workdir "$work/runs" run "$s"
done

log "stored"
bin/efaxx --db "$work/gpu.db" runs --limit 40
tar czf "$OUT/gpu-runs.tgz" -C "$work" runs
ls -l "$OUT"
