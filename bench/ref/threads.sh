#!/usr/bin/env bash
# threads.sh FABTESTS_DIR [RUNNER] [ROUNDS]: what a multi-threaded
# process costs over loopback tcp. fi_rma_bw writedata at 64 KiB as
# built (one thread) and with one more thread that only sleeps
# (sleeper.c, by LD_PRELOAD), beside efaxx write, whose Go process runs
# several, 1 GiB a run, alternated; then fi_rdm_pingpong at 64 B both
# ways. Each one's median, and the ratios' medians with their 95%
# intervals (the bench's rule). docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: threads.sh FABTESTS_DIR [RUNNER] [ROUNDS]}
runner=${2:-bin/efaxx-runner}
rounds=${3:-24}
. "$(dirname "$0")/pair.sh" # makes $tmp
size=65536 iters=$(((1 << 30) / 65536))
gcc -O2 -Wall -shared -fPIC -pthread -o "$tmp/sleeper.so" "$(dirname "$0")/sleeper.c"

# wrap TAG CMD...: CMD, with the sleeping thread where TAG starts with "mt".
wrap() {
	local tag=$1
	shift
	case $tag in
	mt*) LD_PRELOAD="$tmp/sleeper.so" "$@" ;;
	*) "$@" ;;
	esac
}

bw() { # TAG
	fabtests_pair "$1" fi_rma_bw -m -S $size -I $iters -e rdm -o writedata -W 64
	fabtests_gbs "$1"
}
pp() { # TAG
	fabtests_pair "$1" fi_rdm_pingpong -m -S 64 -I 20000
	grep -o 'usec/xfer: [0-9.]*' "$tmp/$1.out" | awk '{ print $2 }'
}
efx() {
	efaxx_pair ef --benchmark write --sizes $size --iterations $iters
	efaxx_gbs ef
}

cells=(one many efaxx)
for r in $(seq 1 "$rounds"); do
	for k in 0 1 2; do # each round starts one cell later
		c=${cells[$(((k + r) % 3))]}
		case $c in
		one) v=$(bw ft) ;;
		many) v=$(bw mt) ;;
		efaxx) v=$(efx) ;;
		esac
		echo "write $r $c ${v:-0}" | tee -a "$tmp/all"
	done
	order=(one many)
	[ $((r % 2)) = 0 ] && order=(many one)
	for c in "${order[@]}"; do
		case $c in one) v=$(pp ft) ;; many) v=$(pp mt) ;; esac
		echo "pingpong $r $c ${v:-0}" | tee -a "$tmp/all"
	done
done
python3 "$(dirname "$0")/ratios.py" "$tmp/all" "write:GB/s:many/one,efaxx/one,efaxx/many" \
	"pingpong:us one way:many/one"
