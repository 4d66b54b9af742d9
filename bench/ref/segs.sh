#!/usr/bin/env bash
# segs.sh FABTESTS_DIR [RUNNER] [ROUNDS] [SIZE]: TCP segments sent per
# write over loopback (both ends' data, acknowledgements and efaxx's own
# acks: /proc/net/snmp's OutSegs across a run, on an otherwise idle host),
# fi_rma_bw writedata (window 64) beside efaxx write, 1 GiB a run. Does
# either program's stream pack its writes into fewer segments?
# docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: segs.sh FABTESTS_DIR [RUNNER] [ROUNDS] [SIZE]}
runner=${2:-bin/efaxx-runner}
rounds=${3:-3}
size=${4:-65536}
. "$(dirname "$0")/pair.sh" # makes $tmp
iters=$(((1 << 30) / size))
segs() { awk '/^Tcp:/ { if (h) print $12; h = 1 }' /proc/net/snmp; }
per() { python3 -c "print('%.3f' % (($2 - $1) / $iters))"; }
for r in $(seq 1 "$rounds"); do
	a=$(segs)
	fabtests_pair ft fi_rma_bw -m -S "$size" -I "$iters" -e rdm -o writedata -W 64
	b=$(segs)
	echo "fi_rma_bw  $(fabtests_gbs ft) GB/s, $(per "$a" "$b") segments a write"
	a=$(segs)
	efaxx_pair ef --benchmark write --sizes "$size" --iterations "$iters"
	b=$(segs)
	echo "efaxx      $(efaxx_gbs ef) GB/s, $(per "$a" "$b") segments a write"
done
