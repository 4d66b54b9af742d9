#!/usr/bin/env bash
# kernels/run-node.sh: NVLink at node scale (issue 17), in one go on a node
# of several GPUs (a p5, a DGX: 4 or 8 H200s): builds the CUDA plugin and
# NVIDIA's nvbandwidth there, runs into one store ipc over every ordered
# pair of the node's GPUs (push, pull, both ways; copy kernel and copy
# engines), the all-to-all (ipc-all2all), the published 2-GPU ipc sweep
# again, and nvbandwidth's matching testcases (imported as an external
# benchmark), then prints the ratios issue 17 accepts by: each pair's copy
# engines over nvbandwidth's CE testcase, its copy kernel over the SM
# testcase (both >= 0.98 for every pair), and the all-to-all's aggregate
# over the sum of its pairs alone and beside what nvbandwidth's GPUs took
# in and sent out at once (all_to_one, one_to_all).
#
# Needs there: nvcc, cmake, git, Open MPI's mpirun, bin/efaxx and
# bin/efaxx-runner built elsewhere (`make build`), root (nvbandwidth goes to
# /opt/nvbandwidth, where sweeps/gpu/node-nvbandwidth.toml runs it), and:
#   NVBANDWIDTH_SRC  a git bundle (or clone) of NVIDIA/nvbandwidth holding
#                    tag v0.8 = 66746a3bef61c8c2e12ab34955310da70b9e38cb
#   BOOST_DEBS       a folder with Debian 12's libboost1.74-dev,
#                    libboost-program-options1.74-dev and
#                    libboost-program-options1.74.0 (1.74.0+ds1-21, sha256
#                    checked below): nvbandwidth links Boost's
#                    program_options statically, which the image lacks
#   EFAXX_NODE_RANKS the rank counts to run, "2 3" say (default: the GPUs
#                    found). More ranks than GPUs share GPUs: their copies
#                    run inside one GPU's memory, not over NVLink; such runs
#                    are tagged copies=in-gpu (copies=peer otherwise), said
#                    so here, and never figure data.
#
# Leaves in $OUT (default out/node): node.db (the store), node-runs.tgz
# (the run directories), nvbandwidth.txt (its output as printed), topo.txt,
# ratios.txt, log.txt (everything printed).
#
# Exit status: 0 when every run ended ok and, where there were pairs of
# GPUs to compare, every ratio held; 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out/node}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
exec > >(tee "$OUT/log.txt") 2>&1
work=$(mktemp -d)
db=$OUT/node.db
status=0
log() { printf '\n== %s\n' "$*"; }
fail() { echo "FAIL: $*"; status=1; }
efaxx() { bin/efaxx --db "$db" "$@"; }

# The Debian 12 packages nvbandwidth is built with, by sha256.
boost_debs=(
	"libboost1.74-dev_1.74.0+ds1-21_amd64.deb ba14fe04d7f138f874bd3ab3a20c4fd1e9f654e271449b8f3e48d20f942dbb93"
	"libboost-program-options1.74-dev_1.74.0+ds1-21_amd64.deb a1bf3a316247e8bcd0b2eaad021a006e3aab3df4904044f16c306d5eaa306c86"
	"libboost-program-options1.74.0_1.74.0+ds1-21_amd64.deb 94b9461b92d24df7926eebc29c57e8360ea127afd99e264d640c9d2ff6db8bb7"
)
NVBANDWIDTH_COMMIT=66746a3bef61c8c2e12ab34955310da70b9e38cb

log "machine"
nvidia-smi -L
nvidia-smi topo -m | tee "$OUT/topo.txt"
gpus=$(nvidia-smi -L | grep -c '^GPU ')
nvcc --version | tail -1
mpirun --version | head -1
uptime
ranks_list=${EFAXX_NODE_RANKS:-$gpus}
echo "GPUs: $gpus; rank counts: $ranks_list"

log "build the plugin"
make -s kernels || exit 1

log "build nvbandwidth v0.8 ($NVBANDWIDTH_COMMIT)"
build_nvbandwidth() {
	local boost=$work/boost src=$work/nvbandwidth name sum got
	mkdir -p "$boost"
	for entry in "${boost_debs[@]}"; do
		read -r name sum <<<"$entry"
		got=$(sha256sum "$BOOST_DEBS/$name" | cut -d' ' -f1) || return 1
		if [ "$got" != "$sum" ]; then
			echo "$BOOST_DEBS/$name: sha256 $got, want $sum"
			return 1
		fi
		dpkg -x "$BOOST_DEBS/$name" "$boost" || return 1
	done
	# a clone of its own: its CMake names the build by `git describe` in the source folder
	git clone -q "$NVBANDWIDTH_SRC" "$src" && git -C "$src" checkout -q "$NVBANDWIDTH_COMMIT" || return 1
	cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
		-DBoost_DIR="$boost/usr/lib/x86_64-linux-gnu/cmake/Boost-1.74.0" -DCMAKE_CXX_FLAGS="-I$boost/usr/include" \
		>"$work/cmake.log" 2>&1 && cmake --build "$src/build" -j 8 >>"$work/cmake.log" 2>&1 || {
		tail -30 "$work/cmake.log"
		return 1
	}
	mkdir -p /opt/nvbandwidth && cp "$src/build/nvbandwidth" /opt/nvbandwidth/ || return 1
	# sed reads all of it: with head, nvbandwidth could die of SIGPIPE, which pipefail reads as a failed build
	/opt/nvbandwidth/nvbandwidth --help | sed -n 1p
}
if ! build_nvbandwidth; then
	fail "nvbandwidth did not build: the runs below go on without it"
fi

# sweep_for RANKS FILE: the sweep at FILE with ranks set, in $work.
sweep_for() {
	local out=$work/$1-$(basename "$2")
	sed "s/^ranks = [0-9]*$/ranks = $1/" "$2" >"$out"
	echo "$out"
}

# run SWEEP TAG...: runs a sweep into the store; a failed run fails the script.
run() {
	local sweep=$1
	shift
	local tags=()
	for t in "$@"; do tags+=(--tag "$t"); done
	echo "efaxx run $sweep ${tags[*]}"
	efaxx --workdir "$work/runs" run "${tags[@]}" "$sweep" || fail "$sweep: a run did not end ok"
}

log "nvbandwidth: its matching testcases, imported as an external benchmark"
if [ -x /opt/nvbandwidth/nvbandwidth ]; then
	run sweeps/gpu/node-nvbandwidth.toml "gpus=$gpus"
	stdout=$(ls -t "$work"/runs/gpu-node-nvbandwidth/*/*/rank-00000.stdout 2>/dev/null | head -1)
	if [ -n "$stdout" ]; then
		cp "$stdout" "$OUT/nvbandwidth.txt"
		asked=$(grep -o '"device_[a-z_]*\|"all_to_one_[a-z_]*\|"one_to_all_[a-z_]*' sweeps/gpu/node-nvbandwidth.toml | tr -d '"')
		ran=$(sed -n 's/^Running \(.*\)\.$/\1/p' "$stdout")
		waived=$(grep -c '^Waived' "$stdout")
		echo "nvbandwidth ran: $(echo $ran)"
		if [ "$waived" -gt 0 ]; then
			echo "nvbandwidth waived $waived testcases (it does not name them; those asked that ran none):" \
				$(comm -23 <(sort <<<"$asked") <(sort <<<"$ran"))
			[ "$gpus" -lt 2 ] && echo "one GPU: nvbandwidth waives every device-to-device testcase, so no pair here has an nvbandwidth number beside it"
		fi
	fi
fi

# nvbw_of METHOD DIRECTION: nvbandwidth's testcase (matrix) that measures
# what ipc's METHOD (memcpy or kernel) measures in DIRECTION.
nvbw_of() {
	local kind=ce
	[ "$1" = kernel ] && kind=sm
	case $2 in
	push) echo "device_to_device_memcpy_write_$kind" ;;
	pull) echo "device_to_device_memcpy_read_$kind" ;;
	bidir) echo "device_to_device_bidirectional_memcpy_write_${kind}_write2" ;;
	esac
}

# raw ARGS: every sample of the selected runs at 512 MiB as "rank peer
# variant GB/s", one a line.
raw() {
	efaxx query --raw --format csv --metric dir_gbs "$@" |
		awk -F, 'NR > 1 && $3 == 536870912 { print $4, $5, $6, $NF }'
}

# ratios RANKS DIRECTION: every pair's rate over nvbandwidth's matching
# matrix cell, per method; the acceptance is no pair below 0.98.
ratios() {
	local r=$1 dir=$2 method theirs
	for method in memcpy kernel; do
		theirs=$(nvbw_of $method "$dir")
		LC_ALL=C join <(awk -v v="$theirs" '$3 == v { print $1 "-" $2, $4 }' "$work/nvbw.txt" | LC_ALL=C sort) \
			<(raw --sweep gpu-node-ipc --param direction="$dir" --tag node_ranks="$r" |
				awk -v m=$method '($3 == "memcpy") == (m == "memcpy") { print $1 "-" $2, $4 }' | LC_ALL=C sort) |
			awk '{ printf "%.6f %s\n", $3 / $2, $1 }' | sort -n |
			awk -v what="$dir, $method over nvbandwidth's $theirs" '
				{ r[NR] = $1; at[NR] = $2; if ($1 < 0.98) low++ }
				END {
					if (NR == 0) { print what ": no pair has both numbers"; exit 1 }
					printf "%s: %d pairs, min %.3f (%s), median %.3f, below 0.98: %d\n", what, NR, r[1], at[1],
						r[int((NR + 1) / 2)], low
					exit low > 0 }' || status=1
	done
}

# planted NAME SIZE MESSAGE SWEEP POINTS: runs SWEEP with byte SIZE/3 of a
# target damaged and passes only when each of its POINTS fails with MESSAGE.
planted() {
	local out rc failed
	out=$(EFAXX_TEST_CORRUPT_SIZE=$2 bin/efaxx --db "$work/check.db" --workdir "$work/check" run "$4" 2>&1)
	rc=$?
	failed=$(grep -F -- "$3" <<<"$out" | sed "s/^ *//" | grep -o '^\[[0-9]*/[0-9]*\]' | sort -u | wc -l) # the points, [i/n]
	if [ $rc -eq 3 ] && [ "$failed" -eq "$5" ]; then # 3: a run that did not end ok
		echo "ok: $1 failed as planted, $5 of $5 points: $(grep -F -- "$3" <<<"$out" | sed 's/^ *//')"
	else
		fail "$1: exit $rc, $failed of $5 points with \"$3\" in: $(tail -3 <<<"$out")"
	fi
}

# schedule_of ID: the schedule of all-to-all run ID (at-once, shifted).
schedule_of() {
	efaxx show "$1" | sed -n 's/^ *params:.* schedule=\([a-z-]*\).*/\1/p' | head -1
}

# ceiling RANKS: the all-to-all's aggregate at 512 MiB beside what the
# node's links carried in nvbandwidth, summed over its GPUs: each GPU
# written by all the others at once (all_to_one_write_*, its way in) and
# each writing to all the others at once (one_to_all_write_*, its way
# out); the copy engines beside CE, the copy kernel beside SM. The sum of
# the pairs alone, which efaxx show divides by, counts each GPU's way out
# once for each peer.
ceiling() {
	local id
	for id in $(efaxx runs --limit 0 --sweep gpu-node-all2all --tag node_ranks="$1" --format csv | awk -F, 'NR > 1 { print $1 }'); do
		efaxx show "$id" | sed -n '/^all-to-all:/,/^aggregate:/p' | awk -v nvbw="$work/nvbw.txt" -v sched="$(schedule_of "$id")" '
			BEGIN { while ((getline l < nvbw) > 0) { split(l, f, " "); sum[f[3]] += f[4] } }
			$1 == "512MiB" && NF == 7 && $3 ~ /^[0-9]+$/ {
				k = $2 == "memcpy" ? "ce" : "sm"
				in_ = sum["all_to_one_write_" k]; out = sum["one_to_all_write_" k]
				if (in_ == 0 || out == 0) { print "all-to-all, " $2 ": nvbandwidth has no all_to_one or one_to_all sum beside it"; next }
				printf "all-to-all at 512 MiB, %s, %s: %.1f GB/s, %.3f of the GPUs\x27 ways in at once (all_to_one_write_%s, %.1f), %.3f of their ways out (one_to_all_write_%s, %.1f)\n",
					sched, $2, $5, $5 / in_, k, in_, $5 / out, k, out
			}'
	done
}

log "checks: a byte flipped in a target fails the point"
for b in ipc ipc-all2all; do
	cat >"$work/check-$b.toml" <<TOML
name = "check-$b"
benchmark = "$b"
[params]
ranks = $(set -- $ranks_list; echo "$1")
sizes = ["1MiB", "4MiB"]
$([ $b = ipc-all2all ] && echo 'schedule = ["at-once", "shifted"]')
iterations = 5
warmup = 1
TOML
done
planted "a byte flipped in an ipc target" 4194304 "16-byte words wrong after the last iteration" "$work/check-ipc.toml" 1
planted "a byte flipped in an all-to-all region" 4194304 "16-byte words from rank" "$work/check-ipc-all2all.toml" 2

for r in $ranks_list; do
	copies=peer
	if [ "$r" -gt "$gpus" ]; then
		copies=in-gpu
		log "$r ranks on $gpus GPU(s): ranks share GPUs, so these copies run inside one GPU's memory: NOT NVLink"
	else
		log "$r ranks, one per GPU"
	fi
	run "$(sweep_for "$r" sweeps/gpu/node-ipc.toml)" "node_ranks=$r" "copies=$copies" "gpus=$gpus"
	run "$(sweep_for "$r" sweeps/gpu/node-all2all.toml)" "node_ranks=$r" "copies=$copies" "gpus=$gpus"
done
if [ "$gpus" -ge 2 ]; then
	log "the published 2-GPU ipc runs (sweeps/gpu/ipc.toml), again with today's code"
	run sweeps/gpu/ipc.toml "copies=peer" "gpus=$gpus"
fi

tar czf "$OUT/node-runs.tgz" -C "$work" runs
log "stored in $db"
efaxx runs --limit 0
for id in $(efaxx runs --limit 0 --format csv | awk -F, 'NR > 1 { print $1 }' | sort -n); do
	efaxx show "$id"
done

log "ratios (pairs at 512 MiB)"
{
	raw --sweep gpu-node-nvbandwidth >"$work/nvbw.txt"
	for r in $ranks_list; do
		echo "-- $r ranks on $gpus GPU(s)"
		if [ "$r" -gt "$gpus" ] || [ "$gpus" -lt 2 ]; then
			echo "ranks share GPUs: in-GPU copies; nvbandwidth has no pair to compare them with (one GPU: its device-to-device testcases are waived)"
		else
			for dir in push pull bidir; do ratios "$r" "$dir"; done
		fi
		for id in $(efaxx runs --limit 0 --sweep gpu-node-all2all --tag node_ranks="$r" --format csv | awk -F, 'NR > 1 { print $1 }'); do
			echo "-- run $id, schedule $(schedule_of "$id")"
			efaxx show "$id" | sed -n '/^all-to-all:/,/^aggregate:/p'
		done
		[ "$r" -gt "$gpus" ] || [ "$gpus" -lt 2 ] || ceiling "$r"
	done
} | tee "$OUT/ratios.txt"
exit $status
