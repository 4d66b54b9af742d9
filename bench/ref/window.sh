#!/usr/bin/env bash
# window.sh FABTESTS_DIR [RUNNER] [ROUNDS] [SIZE]: what sets two-sided
# bandwidth over loopback tcp, a stream's window or its shape?
# fi_rdm_tagged_bw with a window of 64 and of 1, efaxx send (a stream)
# and efaxx sendrecv (a ping-pong), 1 GiB a run (sendrecv: 512 MiB each
# way), alternated; GB/s as the bench counts them, then each one's median
# over rounds and its median ratio over the window of 64, with the
# rounds' range. docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: window.sh FABTESTS_DIR [RUNNER] [ROUNDS] [SIZE]}
runner=${2:-bin/efaxx-runner}
rounds=${3:-16}
size=${4:-1048576}
. "$(dirname "$0")/pair.sh" # makes $tmp
iters=$(((1 << 30) / size))

fab() { # WINDOW
	fabtests_pair ft fi_rdm_tagged_bw -m -S "$size" -I "$iters" -W "$1"
	fabtests_gbs ft
}

efx() { # BENCHMARK ITERATIONS
	efaxx_pair ef --benchmark "$1" --sizes "$size" --iterations "$2"
	efaxx_gbs ef
}

cells=(window-64 window-1 send sendrecv)
for r in $(seq 1 "$rounds"); do
	for k in 0 1 2 3; do # each round starts one cell later
		c=${cells[$(((k + r) % 4))]}
		case $c in
		window-64) v=$(fab 64) ;;
		window-1) v=$(fab 1) ;;
		send) v=$(efx send "$iters") ;;
		sendrecv) v=$(efx sendrecv $((iters / 2))) ;;
		esac
		echo "$r $c $v" | tee -a "$tmp/all"
	done
done
python3 - "$tmp/all" <<'PY'
import statistics, sys
rounds = {}
for line in open(sys.argv[1]):
    r, cell, v = line.split()
    rounds.setdefault(r, {})[cell] = float(v)
full = [x for x in rounds.values() if len(x) == 4]
for cell in ("window-64", "window-1", "send", "sendrecv"):
    q = sorted(x[cell] / x["window-64"] for x in full)
    print("%-10s %6.2f GB/s  over window-64: median %.2f, rounds %.2f-%.2f" % (
        cell, statistics.median(x[cell] for x in full), statistics.median(q), q[0], q[-1]))
PY
