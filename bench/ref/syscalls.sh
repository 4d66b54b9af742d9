#!/usr/bin/env bash
# syscalls.sh FABTESTS_DIR [RUNNER]: the system calls per iteration of
# fi_rma_bw writedata and efaxx write (64 KiB), and of fi_rdm_pingpong and
# efaxx sendrecv (64 B), over loopback tcp, each process counted by
# perf stat: a long run less a short one, so set-up cancels out. Counts
# do not depend on how fast the machine is that minute; polls count
# waiting. Needs perf with tracepoints (root). docs/performance.md.
set -euo pipefail
ft_dir=${1:?usage: syscalls.sh FABTESTS_DIR [RUNNER]}
runner=${2:-bin/efaxx-runner}
. "$(dirname "$0")/pair.sh" # makes $tmp
calls=(raw_syscalls:sys_enter syscalls:sys_enter_sendmsg syscalls:sys_enter_sendto
	syscalls:sys_enter_recvfrom syscalls:sys_enter_poll syscalls:sys_enter_read syscalls:sys_enter_write)
events=$(IFS=,; echo "${calls[*]}")

# wrap TAG CMD... and rank_wrapper TAG: CMD's system calls into $tmp/TAG.
wrap() { local tag=$1; shift; perf stat -x, -o "$tmp/$tag" -e "$events" "$@"; }
rank_wrapper() {
	cat >"$tmp/wrap.$1" <<EOF
#!/bin/sh
exec perf stat -x, -o "$tmp/$1.\$OMPI_COMM_WORLD_RANK" -e "$events" "\$@"
EOF
	chmod +x "$tmp/wrap.$1"
	echo "$tmp/wrap.$1"
}

# row NAME SHORT LONG N: (LONG - SHORT) / N for each call.
row() {
	printf '%-24s' "$1"
	for e in "${calls[@]}"; do
		local a b
		a=$(grep ",$e," "$2" | cut -d, -f1)
		b=$(grep ",$e," "$3" | cut -d, -f1)
		awk -v a="$a" -v b="$b" -v n="$4" 'BEGIN { printf " %8.2f", (b - a) / n }'
	done
	echo
}

# fab PROG NAME SHORT LONG ARGS...: both sides of a short and a long fabtests run.
fab() {
	local prog=$1 name=$2 short=$3 long=$4; shift 4
	fabtests_pair "$name.s" "$prog" -I "$short" "$@"
	fabtests_pair "$name.l" "$prog" -I "$long" "$@"
	row "$prog client" "$tmp/$name.s.cli" "$tmp/$name.l.cli" $((long - short))
	row "$prog server" "$tmp/$name.s.srv" "$tmp/$name.l.srv" $((long - short))
}

# efx BENCHMARK SIZE SHORT LONG: both ranks of a short and a long efaxx run.
efx() {
	local bench=$1 size=$2 short=$3 long=$4
	efaxx_pair "$bench.s" --benchmark "$bench" --sizes "$size" --iterations "$short"
	efaxx_pair "$bench.l" --benchmark "$bench" --sizes "$size" --iterations "$long"
	row "efaxx $bench rank 0" "$tmp/$bench.s.0" "$tmp/$bench.l.0" $((long - short))
	row "efaxx $bench rank 1" "$tmp/$bench.s.1" "$tmp/$bench.l.1" $((long - short))
}

printf '%-24s %8s %8s %8s %8s %8s %8s %8s\n' "per iteration" all sendmsg sendto recvfrom poll read write
fab fi_rma_bw w 2000 32768 -m -S 65536 -e rdm -o writedata -W 64
efx write 65536 2000 32768
fab fi_rdm_pingpong p 2000 22000 -S 64
efx sendrecv 64 2000 22000
