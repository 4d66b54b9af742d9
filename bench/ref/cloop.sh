#!/usr/bin/env bash
# cloop.sh FABTESTS_DIR [RUNNER] [ROUNDS] [SLOTS]: is efaxx's gap to
# fi_rma_bw over loopback tcp at 64 KiB its Go process or its C loop?
# fi_rma_bw writedata (window 64), efaxx-runner's write, and the same
# native loop driven from C (cloop.c, no Go runtime) with the defaults'
# slots and with SLOTS (default 4), 1 GiB a run, alternated; each one's
# median and the ratios' medians with their 95% intervals (the bench's
# rule). docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: cloop.sh FABTESTS_DIR [RUNNER] [ROUNDS] [SLOTS]}
runner=${2:-bin/efaxx-runner}
rounds=${3:-24}
slots=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/pair.sh" # makes $tmp
size=65536 iters=$(((1 << 30) / 65536))
mpicc -O2 -std=gnu11 -I"$here/../../native" -I"$here/../../kernels" -o "$tmp/cloop" "$here/cloop.c" \
	"$here"/../../native/*.c $(pkg-config --cflags --libs libfabric) -ldl -lpthread 2>"$tmp/cc.log" ||
	{ cat "$tmp/cc.log" >&2; exit 1; }

cloop() { # SLOTS
	mpirun --allow-run-as-root --mca btl self,vader --mca oob_tcp_if_include lo -np 2 \
		"$tmp/cloop" $size $iters "$1" 2>/dev/null | head -1
}

cells=(fi_rma_bw runner c c-slots)
for r in $(seq 1 "$rounds"); do
	for k in 0 1 2 3; do # each round starts one cell later
		c=${cells[$(((k + r) % 4))]}
		case $c in
		fi_rma_bw)
			fabtests_pair ft fi_rma_bw -m -S $size -I $iters -e rdm -o writedata -W 64
			v=$(fabtests_gbs ft)
			;;
		runner)
			efaxx_pair ef --benchmark write --sizes $size --iterations $iters
			v=$(efaxx_gbs ef)
			;;
		c) v=$(cloop 64) ;;
		c-slots) v=$(cloop "$slots") ;;
		esac
		echo "write $r $c ${v:-0}" | tee -a "$tmp/all"
	done
done
python3 "$here/ratios.py" "$tmp/all" "write:GB/s:runner/fi_rma_bw,c/fi_rma_bw,c-slots/fi_rma_bw,c/runner,c-slots/c"
