#!/usr/bin/env bash
# timeline.sh FABTESTS_DIR [RUNNER] [SIZE] [ROUND_TRIPS]: where a ping-pong's
# time goes over loopback tcp, fi_rdm_pingpong beside efaxx sendrecv
# (default 1 MiB, 300 round trips): every system call of both sides
# recorded by perf (tracepoints, root), then the medians of each step of
# a message by rxm's rendezvous (timeline.py). Both sides' clocks are the
# same host's. docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: timeline.sh FABTESTS_DIR [RUNNER] [SIZE] [ROUND_TRIPS]}
runner=${2:-bin/efaxx-runner}
size=${3:-1048576}
trips=${4:-300}
. "$(dirname "$0")/pair.sh" # makes $tmp
events=
for c in sendmsg sendto recvfrom read write poll; do
	events="$events${events:+,}syscalls:sys_enter_$c,syscalls:sys_exit_$c"
done

# wrap TAG CMD... and rank_wrapper TAG: CMD's system calls into $tmp/TAG.
wrap() { local tag=$1; shift; perf record -q -e "$events" -o "$tmp/$tag" "$@"; }
rank_wrapper() {
	cat >"$tmp/wrap.$1" <<X
#!/bin/sh
exec perf record -q -e "$events" -o "$tmp/$1.\$OMPI_COMM_WORLD_RANK" "\$@"
X
	chmod +x "$tmp/wrap.$1"
	echo "$tmp/wrap.$1"
}

fabtests_pair ft fi_rdm_pingpong -S "$size" -I "$trips"
efaxx_pair ef --benchmark sendrecv --sizes "$size" --iterations "$trips"
for f in ft.cli ft.srv ef.0 ef.1; do
	perf script -i "$tmp/$f" -F pid,time,event,trace >"$tmp/$f.txt" 2>/dev/null
done
python3 "$(dirname "$0")/timeline.py" fi_rdm_pingpong "$tmp/ft.cli.txt" "$tmp/ft.srv.txt" "$size"
python3 "$(dirname "$0")/timeline.py" "efaxx sendrecv" "$tmp/ef.0.txt" "$tmp/ef.1.txt" "$size"
