#!/usr/bin/env bash
# runners.sh FABTESTS_DIR ROUNDS SIZE NAME=RUNNER...: two or more
# efaxx-runners' write over loopback tcp (their defaults) beside
# fi_rma_bw writedata (window 64), 1 GiB a run, alternated, each round
# starting one cell later; each one's median and the ratios' medians
# over fi_rma_bw and over the first runner, with their 95% intervals
# (the bench's rule). A runner of a commit before a change beside one
# of it. docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: runners.sh FABTESTS_DIR ROUNDS SIZE NAME=RUNNER...}
rounds=${2:?rounds}
size=${3:?size}
shift 3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/pair.sh" # makes $tmp
iters=$(((1 << 30) / size))
cells=(fi_rma_bw) runners=()
for a in "$@"; do
	cells+=("${a%%=*}")
	runners+=("${a#*=}")
done
n=${#cells[@]}
for r in $(seq 1 "$rounds"); do
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + r) % n))
		if [ "$i" = 0 ]; then
			fabtests_pair ft fi_rma_bw -m -S "$size" -I "$iters" -e rdm -o writedata -W 64
			v=$(fabtests_gbs ft)
		else
			runner=${runners[$((i - 1))]}
			efaxx_pair ef --benchmark write --sizes "$size" --iterations "$iters"
			v=$(efaxx_gbs ef)
		fi
		echo "write $r ${cells[$i]} ${v:-0}" | tee -a "$tmp/all"
	done
done
ratios=
for c in "${cells[@]:1}"; do
	ratios+="$c/fi_rma_bw,"
done
for c in "${cells[@]:2}"; do
	ratios+="$c/${cells[1]},"
done
python3 "$here/ratios.py" "$tmp/all" "write:GB/s:${ratios%,}"
